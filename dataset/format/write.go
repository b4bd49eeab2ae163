package format

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/internal/writelimit"
)

// RecordWriter writes the records of one file (see Format.Write).
type RecordWriter interface {
	// Write appends rec and returns the bytes of the records written so
	// far, those the writer still buffers included. Its errors say what is
	// wrong with rec, not where it was read: the caller knows that.
	Write(rec Record) (int64, error)
	// Close ends the file (a tar trailer, a Parquet footer, a RecordIO
	// file's index) and closes it. After a failed Write, Close releases
	// the file, whose content is then not to be used.
	Close() error
}

// fileWriter is a RecordWriter writing through a buffer to a file it
// created; put writes one record, end ends the stream before the buffer
// is flushed.
type fileWriter struct {
	f   *os.File
	bw  *bufio.Writer
	n   int64 // bytes written, as put counts them
	put func(w *bufio.Writer, rec Record) (int64, error)
	end func() error
}

// createFile creates path for a fileWriter whose put and end newWriter
// makes from the buffered writer of the file.
func createFile(path string, newWriter func(bw *bufio.Writer) (put func(*bufio.Writer, Record) (int64, error), end func() error)) (RecordWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &fileWriter{f: f, bw: bufio.NewWriterSize(f, 1<<20)}
	w.put, w.end = newWriter(w.bw)
	return w, nil
}

func (w *fileWriter) Write(rec Record) (int64, error) {
	n, err := w.put(w.bw, rec)
	w.n += n
	return w.n, err
}

func (w *fileWriter) Close() error {
	err := w.end()
	if err == nil {
		err = w.bw.Flush()
	}
	if err == nil {
		err = w.f.Sync()
	}
	return errors.Join(err, w.f.Close())
}

// tooLarge is the error of a record over a writer's limit: its size, the
// limit and the reader's option that sets it, wrapping sentinel.
func tooLarge(sentinel error, what string, n, limit int64, option string) error {
	return fmt.Errorf("%s is %d bytes, more than the %d that the reader accepts (%s): %w", what, n, limit, option, sentinel)
}

// fieldsWhat says what a record with fields is, for the formats that
// cannot hold one.
const fieldsWhat = "its fields (a WebDataset sample's members, a Parquet row's columns) have names"

// writeRecordIO is the Write of the recordio format: a record's payload
// as it is, or, with Labels, an image record (MXNet's header with Index
// as its id and the labels, then Data); the index beside the file (path
// without its .rec, plus .idx) maps each record's Index to its offset.
func writeRecordIO(path string) (RecordWriter, error) {
	var idx, buf []byte
	return createFile(path, func(bw *bufio.Writer) (func(*bufio.Writer, Record) (int64, error), func() error) {
		w := recordio.NewWriter(bw)
		put := func(_ *bufio.Writer, rec Record) (int64, error) {
			if rec.Fields != nil {
				return 0, fmt.Errorf("sample %q: %s, and a RecordIO record holds one payload: convert it to tfrecord or wds", rec.Key, fieldsWhat)
			}
			payload := rec.Data
			if rec.Labels != nil {
				h := imagerec.Header{ID: uint64(rec.Index)}
				if len(rec.Labels) == 1 {
					h.Label = rec.Labels[0]
				} else {
					h.Labels = rec.Labels
				}
				buf = imagerec.AppendRecord(buf[:0], h, rec.Data)
				payload = buf
			}
			if limit := writelimit.Current.RecordIO; int64(len(payload)) > limit {
				return 0, tooLarge(recordio.ErrTooLarge, "the RecordIO payload", int64(len(payload)), limit, "recordio.MaxRecordSize")
			}
			start := w.Tell()
			idx = recordio.AppendIndexLine(idx, rec.Index, start)
			err := w.Write(payload)
			return w.Tell() - start, err
		}
		end := func() error {
			return os.WriteFile(strings.TrimSuffix(path, ".rec")+".idx", idx, 0o666)
		}
		return put, end
	})
}

// writeTFRecord is the Write of the tfrecord format: each record a
// tf.train.Example of its Fields by name, or of Data as "image" (with
// Labels) or "data"; Labels as "label" (int64, or float when one is not
// an integer), and Key as "key" unless a field has that name.
func writeTFRecord(path string) (RecordWriter, error) {
	return createFile(path, func(bw *bufio.Writer) (func(*bufio.Writer, Record) (int64, error), func() error) {
		w := tfrecord.NewWriter(bw)
		put := func(_ *bufio.Writer, rec Record) (int64, error) {
			var ex tfrecord.Example
			if rec.Fields != nil {
				for _, name := range sortedNames(rec.Fields) {
					ex.SetBytes(name, rec.Fields[name])
				}
			} else if rec.Labels != nil {
				ex.SetBytes("image", rec.Data)
			} else {
				ex.SetBytes("data", rec.Data)
			}
			if rec.Labels != nil {
				if integral(rec.Labels) {
					v := make([]int64, len(rec.Labels))
					for i, l := range rec.Labels {
						v[i] = int64(l)
					}
					ex.SetInt64s("label", v...)
				} else {
					ex.SetFloat32s("label", rec.Labels...)
				}
			}
			if _, taken := rec.Fields["key"]; !taken {
				ex.SetBytes("key", []byte(rec.Key))
			}
			buf := ex.Marshal()
			if limit := writelimit.Current.TFRecord; int64(len(buf)) > limit {
				return 0, tooLarge(tfrecord.ErrTooLarge, "the tf.train.Example", int64(len(buf)), limit, "tfrecord.MaxRecordBytes")
			}
			// A length, its CRC, the data and its CRC.
			return 8 + 4 + int64(len(buf)) + 4, w.Write(buf)
		}
		return put, w.Close
	})
}

// writeWDS is the Write of the wds format: each record a sample of its
// Fields, or of Data as KEY.EXT (EXT the extension of Path for a whole
// file, Offset -1, else "bin") with Labels as KEY.cls (one integer) or
// KEY.json.
func writeWDS(path string) (RecordWriter, error) {
	return createFile(path, func(bw *bufio.Writer) (func(*bufio.Writer, Record) (int64, error), func() error) {
		cw := &countWriter{w: bw}
		w := webdataset.NewWriter(cw)
		put := func(_ *bufio.Writer, rec Record) (int64, error) {
			fields := rec.Fields
			if fields == nil {
				ext := "bin"
				if e := strings.TrimPrefix(strings.ToLower(filepath.Ext(rec.Path)), "."); rec.Offset < 0 && e != "" {
					ext = e
				}
				fields = map[string][]byte{ext: rec.Data}
				if rec.Labels != nil {
					field := "cls"
					if len(rec.Labels) != 1 || !integral(rec.Labels) {
						field = "json"
					}
					fields[field] = appendLabelsText(nil, rec.Labels)
				}
			}
			var total int64
			lim := writelimit.Current
			for _, name := range sortedNames(fields) {
				n := int64(len(fields[name]))
				if n > lim.WDSMember {
					return 0, tooLarge(webdataset.ErrTooLarge, fmt.Sprintf("the member %s.%s", rec.Key, name), n, lim.WDSMember, "webdataset.MaxMemberBytes")
				}
				total += n
			}
			if total > lim.WDSSample {
				return 0, tooLarge(webdataset.ErrTooLarge, fmt.Sprintf("the sample %q", rec.Key), total, lim.WDSSample, "webdataset.MaxSampleBytes")
			}
			before := cw.n
			err := w.Write(webdataset.Sample{Key: rec.Key, Fields: fields})
			return cw.n - before, err
		}
		return put, w.Close
	})
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// parquetImageRow is a row of the Parquet files written from labelled
// records (images): the image's bytes and its label, with its key.
type parquetImageRow struct {
	Key   string `parquet:"key"`
	Image []byte `parquet:"image"`
	Label int64  `parquet:"label"`
}

// parquetDataRow is a row of the Parquet files written from records
// without labels: the payload, with its key.
type parquetDataRow struct {
	Key  string `parquet:"key"`
	Data []byte `parquet:"data"`
}

// parquetWriter writes Parquet rows of type T through dataset/parquet,
// which writes the file whole or not at all.
type parquetWriter[T any] struct {
	w     *parquet.Writer[T]
	row   func(rec *Record) (T, error)
	n     int64 // the rows' bytes before encoding
	group int64 // the bytes of n in the current row group
	err   error // the first failed Write: Close then aborts
}

// writeParquet is the Write of the parquet format. A file has the
// columns of what its first record holds: key, image and label (one
// integer label per record) for records with Labels, key and data
// without; a record with Fields is refused, since the columns are fixed.
// Row groups end every writelimit.Current.ParquetGroup bytes of rows.
func writeParquet(path string) (RecordWriter, error) {
	return &lazyParquet{path: path}, nil
}

// lazyParquet creates its file at the first record, whose labels set
// the columns.
type lazyParquet struct {
	path string
	w    RecordWriter
}

func (l *lazyParquet) Write(rec Record) (int64, error) {
	if l.w == nil {
		var err error
		if rec.Labels == nil {
			l.w, err = newParquetWriter(l.path, func(rec *Record) (parquetDataRow, error) {
				if rec.Labels != nil {
					return parquetDataRow{}, fmt.Errorf("record %q: labels %v in a file of payloads without labels", rec.Key, rec.Labels)
				}
				return parquetDataRow{Key: rec.Key, Data: rec.Data}, nil
			})
		} else {
			l.w, err = newParquetWriter(l.path, func(rec *Record) (parquetImageRow, error) {
				if len(rec.Labels) != 1 || !integral(rec.Labels) {
					return parquetImageRow{}, fmt.Errorf("record %q: labels %v: a Parquet file holds one integer label per image; convert to tfrecord or wds", rec.Key, rec.Labels)
				}
				return parquetImageRow{Key: rec.Key, Image: rec.Data, Label: int64(rec.Labels[0])}, nil
			})
		}
		if err != nil {
			return 0, err
		}
	}
	return l.w.Write(rec)
}

func (l *lazyParquet) Close() error {
	if l.w == nil {
		return nil
	}
	return l.w.Close()
}

func newParquetWriter[T any](path string, row func(rec *Record) (T, error)) (RecordWriter, error) {
	w, err := parquet.Create[T](path)
	if err != nil {
		return nil, err
	}
	return &parquetWriter[T]{w: w, row: row}, nil
}

func (p *parquetWriter[T]) Write(rec Record) (int64, error) {
	n, err := p.write(rec)
	if err != nil && p.err == nil {
		p.err = err
	}
	return n, err
}

func (p *parquetWriter[T]) write(rec Record) (int64, error) {
	if rec.Fields != nil {
		return p.n, fmt.Errorf("sample %q: %s (%s), and the Parquet files written have fixed columns (key and data for a payload; key, image and label for an image), not a column for each field: convert it to tfrecord or wds", rec.Key, fieldsWhat, strings.Join(sortedNames(rec.Fields), ", "))
	}
	row, err := p.row(&rec)
	if err != nil {
		return p.n, err
	}
	lim := writelimit.Current
	for _, v := range [][]byte{[]byte(rec.Key), rec.Data} {
		if n := int64(len(v)); n+writelimit.ParquetPageSlack > lim.ParquetPage {
			what := fmt.Sprintf("a Parquet page holding its %d-byte value (and up to %d bytes of others)", n, writelimit.ParquetPageSlack)
			return p.n, tooLarge(parquet.ErrTooLarge, what, n+writelimit.ParquetPageSlack, lim.ParquetPage, "parquet.MaxPageBytes")
		}
	}
	size := int64(len(rec.Key) + len(rec.Data) + 8)
	if p.group > 0 && p.group+size > lim.ParquetGroup {
		if err := p.w.Flush(); err != nil {
			return p.n, err
		}
		p.group = 0
	}
	p.n += size
	p.group += size
	return p.n, p.w.Write(row)
}

func (p *parquetWriter[T]) Close() error {
	if p.err != nil {
		p.w.Abort()
		return nil
	}
	return p.w.Close()
}

// integral reports whether labels are all integers, as a TFRecord int64
// feature or a WebDataset .cls field holds them.
func integral(labels []float32) bool {
	for _, l := range labels {
		if l != float32(math.Trunc(float64(l))) || math.Abs(float64(l)) > 1<<53 {
			return false
		}
	}
	return true
}

// appendLabelsText appends labels as text: "3" for one integer label, a
// JSON array otherwise.
func appendLabelsText(dst []byte, labels []float32) []byte {
	if len(labels) == 1 && integral(labels) {
		return strconv.AppendInt(dst, int64(labels[0]), 10)
	}
	dst = append(dst, '[')
	for i, l := range labels {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, float64(l), 'g', -1, 32)
	}
	return append(dst, ']')
}

// sortedNames returns the keys of fields, sorted.
func sortedNames(fields map[string][]byte) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range fields {
			if !yield(k) {
				return
			}
		}
	})
}
