// Package writelimit holds the largest records that dataset/format's
// writers (Format.Write) write: those the readers accept by default, so
// that every file written reads back. Tests lower them, and read the files
// back with readers lowered alike.
package writelimit

import pq "github.com/parquet-go/parquet-go"

// Limits are the limits of each format's writer, in bytes.
type Limits struct {
	RecordIO  int64 // a payload (recordio.MaxRecordSize)
	TFRecord  int64 // a serialized tf.train.Example (tfrecord.MaxRecordBytes's default)
	WDSMember int64 // one member of a sample (webdataset.MaxMemberBytes's default)
	WDSSample int64 // the members of a sample together (webdataset.MaxSampleBytes's default)
	// ParquetPage is the largest page (parquet.MaxPageBytes's default). A
	// page holds the values written since the last one until they pass
	// parquet-go's page buffer, so a value may share its page with up to
	// ParquetPageSlack bytes.
	ParquetPage int64
	// ParquetGroup is the row bytes after which a Parquet row group ends:
	// parquet-go holds a row group in memory until it ends, and a reader
	// decodes one at a time.
	ParquetGroup int64
}

// ParquetPageSlack is what a Parquet value may share its page with:
// parquet-go's page buffer, the value's length prefix and the page's
// levels, rounded up.
const ParquetPageSlack = pq.DefaultPageBufferSize + 4<<10

// Current are the limits the writers enforce.
var Current = Limits{
	RecordIO:     1<<29 - 1, // recordio.MaxRecordSize
	TFRecord:     256 << 20,
	WDSMember:    64 << 20,
	WDSSample:    256 << 20,
	ParquetPage:  256 << 20,
	ParquetGroup: 64 << 20,
}
