package format

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"io"
	"iter"
	"slices"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// RecordIO returns the recordio format: dmlc RecordIO files
// (dataset/recordio), recognised by their magic word. Data is a record's
// payload, the parts of a split record joined. opts go to recordio.Open;
// its Storage returns RecordIO with recordio.Storage added. Its Check
// reads every record's framing; when the first record is an image record
// holding a JPEG or PNG (as im2rec writes them), every record is parsed
// as one and its image decoded; the .idx beside a .rec is checked against
// it, and a path ending in .idx is checked against the .rec beside it.
// opts are not used by Check.
// Its Write writes each Record's Data, or with Labels an image record
// (MXNet's header with Index as its id and the labels, then Data), and
// the .idx beside the file; its Show returns the images of image records
// (JPEG, PNG or raw pixels).
func RecordIO(opts ...recordio.Option) Format {
	f := Format{
		Write: writeRecordIO,
		Storage: func(so ...storage.Option) Format {
			return RecordIO(append(slices.Clip(opts), recordio.Storage(so...))...)
		},
		Detect: func(head []byte) bool {
			return len(head) >= 4 && binary.LittleEndian.Uint32(head) == recordio.Magic
		},
		Check: func(ctx context.Context, paths []string, out io.Writer, copts ...Option) error {
			return check(ctx, paths, out, copts, checkRecordIOFile)
		},
		Open: func(path string, _ *source.SkipPolicy) source.Reader[Record] {
			r := recordio.Open(path, opts...)
			return mapReader(r, func(_ int64, v recordio.Record) Record {
				return Record{Path: path, Index: int64(v.Index), Offset: v.Offset, Data: v.Data}
			})
		},
	}
	f.Show = showRecordIO(f)
	return f
}

// TFRecord returns the tfrecord format: TFRecord files, plain or gzip
// (dataset/tfrecord), recognised by a first length whose CRC verifies.
// opts go to tfrecord.Open; under a bad-record policy (OnBad) its Open
// adds tfrecord.OnBad with it, which skips records whose data checksum
// fails. Its Storage returns TFRecord with tfrecord.Storage added.
// Its Write writes each Record as a tf.train.Example: its Fields by name,
// or Data as "image" (with Labels) or "data", Labels as "label", Key as
// "key".
func TFRecord(opts ...tfrecord.Option) Format {
	return Format{
		Write: writeTFRecord,
		Storage: func(so ...storage.Option) Format {
			return TFRecord(append(slices.Clip(opts), tfrecord.Storage(so...))...)
		},
		Detect: func(head []byte) bool { return isTFRecord(head) || isTFRecord(gunzipHead(head)) },
		Check: func(ctx context.Context, paths []string, out io.Writer, copts ...Option) error {
			return check(ctx, paths, out, copts, func(ctx context.Context, c *checker, out io.Writer) error {
				return checkTFRecord(ctx, c, out, opts)
			})
		},
		Open: func(path string, bad *source.SkipPolicy) source.Reader[Record] {
			o := opts
			if bad != nil {
				o = append(slices.Clip(opts), tfrecord.OnBad(bad))
			}
			return mapReader(tfrecord.Open(path, o...), func(_ int64, v tfrecord.Record) Record {
				return Record{Path: path, Index: v.Index, Offset: v.Offset, Data: v.Data}
			})
		},
	}
}

// WDS returns the wds format: WebDataset tar shards, plain or gzip
// (dataset/webdataset), recognised by a tar header. Each Record is one
// sample: Key is its key, Fields its members, Data nil. opts go to
// webdataset.Open (webdataset.Fields, limits, IgnoreZeros for tar
// archives joined end to end), and under a bad-record policy (OnBad)
// webdataset.OnBad with it; its Storage returns WDS with
// webdataset.Storage added. Open, reading several wds files, refuses a
// sample split across two of them, as webdataset.Open does; so does its
// Check, which parses the .npy, .cls, .json and image fields of every
// sample and sums up each shard's fields and images.
// Its Write writes each Record as a sample: its Fields, or Data as
// KEY.EXT with Labels as KEY.cls (one integer) or KEY.json.
func WDS(opts ...webdataset.Option) Format {
	return Format{
		Write: writeWDS,
		Storage: func(so ...storage.Option) Format {
			return WDS(append(slices.Clip(opts), webdataset.Storage(so...))...)
		},
		Detect: func(head []byte) bool { return isTar(head) || isTar(gunzipHead(head)) },
		Check: func(ctx context.Context, paths []string, out io.Writer, copts ...Option) error {
			var seam wdsSeam
			return check(ctx, paths, out, copts, func(ctx context.Context, c *checker, out io.Writer) error {
				return checkWDS(ctx, c, out, &seam, opts)
			})
		},
		Open: func(path string, bad *source.SkipPolicy) source.Reader[Record] {
			o := opts
			if bad != nil {
				o = append(slices.Clip(opts), webdataset.OnBad(bad))
			}
			return mapReader(webdataset.Open(path, o...), func(i int64, v webdataset.Sample) Record {
				return Record{Path: path, Index: i, Offset: v.Offset, Key: v.Key, Fields: v.Fields}
			})
		},
	}
}

// Parquet returns the parquet format: Apache Parquet files
// (dataset/parquet), recognised by their "PAR1" magic. Each Record is one
// row, read by parquet.ReadRaw: Index is its index in the file, Offset
// that of its row group (a row has no offset of its own), Fields every
// column's values by the column's name (numbers little-endian, byte arrays
// as they are, a list's values one after the other) and Data nil. opts go
// to parquet.ReadRaw (its limits, Workers). A Parquet file has no bad
// records to step over: its errors all end the pass. Its Storage returns
// Parquet with parquet.Storage added.
// Its Write writes rows of key and data, or of key, image and label for
// Records with Labels; a Record with Fields is refused.
func Parquet(opts ...parquet.Option) Format {
	return Format{
		Write:  writeParquet,
		Detect: func(head []byte) bool { return len(head) >= 4 && string(head[:4]) == parquetMagic },
		Storage: func(so ...storage.Option) Format {
			return Parquet(append(slices.Clip(opts), parquet.Storage(so...))...)
		},
		Open: func(path string, _ *source.SkipPolicy) source.Reader[Record] {
			return mapReader(parquet.ReadRaw(path, opts...), func(_ int64, v parquet.RawRow) Record {
				return Record{Path: path, Index: v.Index, Offset: v.Offset, Fields: v.Fields}
			})
		},
		Check: func(ctx context.Context, paths []string, out io.Writer, copts ...Option) error {
			return check(ctx, paths, out, copts, func(ctx context.Context, c *checker, out io.Writer) error {
				return checkParquet(ctx, c, out, opts)
			})
		},
	}
}

// parquetMagic starts (and ends) every Parquet file.
const parquetMagic = "PAR1"

// idxFormat is the idx format reading through storage with sopts: IDX
// files, plain or gzip (the format of MNIST, whose digits dataset/mnist
// reads), recognised from their first bytes. Each Record is one slice
// along the first dimension, its elements big-endian as in the file. The
// readers keep the IDX limits (a record of at most 64 MiB, at most 1 GiB
// of data after decompression). Its Show draws a local file's first
// records.
func idxFormat(sopts []storage.Option) Format {
	return Format{
		Check: func(ctx context.Context, paths []string, out io.Writer, opts ...Option) error {
			return check(ctx, paths, out, append([]Option{Storage(sopts...)}, opts...), checkIDX)
		},
		Detect:  idx.Is,
		Show:    showIDX,
		Storage: func(so ...storage.Option) Format { return idxFormat(so) },
		Open: func(path string, _ *source.SkipPolicy) source.Reader[Record] {
			return fileReader(path, sopts, func(ctx context.Context, f storage.File, yield func(Record, error) bool) {
				x, err := idx.NewReader(f, path, idx.InputSize(f.Size()))
				if err != nil {
					yield(Record{}, err)
					return
				}
				for i := int64(0); ; i++ {
					if err := ctx.Err(); err != nil {
						yield(Record{}, err)
						return
					}
					off := x.Offset()
					buf := make([]byte, x.RecordBytes())
					switch err := x.ReadRaw(buf); {
					case err == io.EOF:
						return
					case err != nil:
						yield(Record{}, err)
						return
					}
					if !yield(Record{Path: path, Index: i, Offset: off, Data: buf}, nil) {
						return
					}
				}
			})
		},
	}
}

// CSV returns the csv format: the lines of a text file, each Record's Data
// one line without its "\n" or "\r\n"; a last line without a line ending
// is a record too. Lines longer than maxLineBytes are a *tensorfeed.Error
// (maxLineBytes < 1 means 1 MiB). Files are recognised as
// text holding a comma in their first headSize bytes. Fields are not split:
// any CSV parser can be used on the lines (dataset/csv reads typed rows).
// Under a bad-record policy (OnBad) its Open steps over each line longer
// than maxLineBytes; its Check reads a file's lines to the end, or parses its rows
// with dataset/csv under Rows. Its Storage returns
// the format reading through package storage with the options given.
func CSV(maxLineBytes int) Format { return csvFormat(maxLineBytes, nil) }

// csvFormat is CSV(maxLineBytes) reading through storage with sopts.
func csvFormat(maxLineBytes int, sopts []storage.Option) Format {
	if maxLineBytes < 1 {
		maxLineBytes = defaultMaxLineBytes
	}
	return Format{
		Detect:  looksCSV,
		Storage: func(so ...storage.Option) Format { return csvFormat(maxLineBytes, so) },
		Check: func(ctx context.Context, paths []string, out io.Writer, opts ...Option) error {
			return check(ctx, paths, out, append([]Option{Storage(sopts...)}, opts...), func(ctx context.Context, c *checker, out io.Writer) error {
				if c.rows != nil {
					return checkRows(ctx, c, out)
				}
				return checkLines(ctx, c, maxLineBytes, out)
			})
		},
		Open: func(path string, bad *source.SkipPolicy) source.Reader[Record] {
			if bad != nil {
				return csvSkip(path, maxLineBytes, bad, sopts)
			}
			return fileReader(path, sopts, func(ctx context.Context, f storage.File, yield func(Record, error) bool) {
				yieldLines(ctx, lines(f, path, maxLineBytes, nil), yield)
			})
		},
	}
}

// mapReader turns the values of r into Records; f gets each value's index
// in the pass.
func mapReader[T any](r source.Reader[T], f func(i int64, v T) Record) source.Reader[Record] {
	return source.Func[Record](func(ctx context.Context) iter.Seq2[Record, error] {
		return func(yield func(Record, error) bool) {
			var i int64
			for v, err := range r.All(ctx) {
				if err != nil {
					yield(Record{}, err)
					return
				}
				if !yield(f(i, v), nil) {
					return
				}
				i++
			}
		}
	})
}

// gunzipHead returns what a gzip head decompresses to, as far as it goes,
// or nil if head is not gzip.
func gunzipHead(head []byte) []byte {
	if len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return nil
	}
	var inner [headSize]byte
	n, _ := io.ReadFull(zr, inner[:])
	return inner[:n]
}

// isTar reports whether head starts with a POSIX or GNU tar header: "ustar"
// at offset 257.
func isTar(head []byte) bool {
	return len(head) >= 262 && string(head[257:262]) == "ustar"
}

// isTFRecord reports whether head starts with a TFRecord record: a length
// whose masked CRC32C, in the 4 bytes after it, verifies.
func isTFRecord(head []byte) bool {
	return len(head) >= 12 && binary.LittleEndian.Uint32(head[8:]) == tfrecord.MaskedCRC(head[:8])
}

// looksCSV reports whether head is text (see looksText) holding a comma.
func looksCSV(head []byte) bool { return bytes.ContainsRune(head, ',') && looksText(head) }
