// Package parquet reads and writes Apache Parquet files through
// github.com/parquet-go/parquet-go, as tensorfeed readers.
//
// # Reading
//
// [Read] reads rows into Go structs (parquet-go's `parquet:"name"` tags);
// [ReadColumns] reads chosen columns as fixed-shape tensor values: a
// list<float> column of 784 values per row as a [784] float32 field, a
// scalar column as a scalar, checked row by row. Both are re-iterable
// source.Readers that open their files when a pass starts. [Fields] makes
// the sink fields that batch [Row]s into tensors.
//
// Every reader takes a file list: a path, several separated by ';', a
// directory (its .parquet files) or a glob, as source.Paths expands it.
// Paths may be local paths, s3:// objects or http(s):// URLs, opened
// through package storage ([Storage] passes its options); a remote file is
// read by byte ranges.
//
// Row groups are the unit of work: [Workers] decodes several at once while
// the rows keep file order, and [OpenIndexed] over any of its readers gives
// random access (a source.Indexed) for the shuffle by index, the split
// between ranks (source.ShardIndex) and resuming. The package has no
// shuffle or shard of its own.
//
// # Resuming
//
// The readers of [Read], [ReadColumns] and [ReadRaw] are source.Resumable: the state of a pass is the
// position of its next row among the rows of its row groups, a single
// number. A resumed pass skips the row groups before it by the row counts
// of the footers, without reading them, and decodes only the row group
// that holds it. [OpenIndexed]'s view resumes through source.ReadIndexed, shuffled or
// not.
//
// # Writing
//
// [Writer] ([Create], then Write and Close) writes structs as a Parquet file with a row
// group size ([RowGroupRows]), atomically: a temporary file renamed over
// the path when it is complete.
//
// # Errors and limits
//
// Malformed input gives a [*tensorfeed.Error] naming the file and, where they
// apply, the row group, the row, the column and the byte offset; it wraps
// [ErrFormat] (and so tensorfeed.ErrBadData) and the cause:
// io.ErrUnexpectedEOF for a truncated file, [ErrTooLarge] or
// [ErrColumnType].
//
// parquet-go allocates for the lengths the metadata claims, so every
// length is checked against the bytes present and documented limits
// before it is handed over: the footer ([MaxFooterBytes]) and the memory
// its decoding takes ([MaxMetadataBytes], counted by walking its Thrift
// encoding first), every page header before parquet-go reads it: those
// of a row group before it is decoded ([Read], [ReadRaw]), or, for
// [ReadColumns], each in the bytes parquet-go reads before they reach it
// ([MaxPageBytes], [MaxPageValues], and [MaxRowGroupValues] for all the
// pages of a column in a row group; a snappy block's claimed length too). Pages compressed with gzip, zstd or lz4 grow as their
// decoder produces bytes. A panic of parquet-go on malformed input becomes
// a *tensorfeed.Error.
//
// A row whose value does not fit its column (a list of another length, a
// null) is a bad record: [OnBad] skips such rows under a
// bounded source.SkipPolicy. Any other damage ends the pass.
package parquet
