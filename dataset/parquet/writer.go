package parquet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

// WriteOption configures a [Writer].
type WriteOption = option.Option[writeConfig]

type writeConfig struct {
	groupRows int64
	codec     compress.Codec
}

// defaultRowGroupRows is how many rows a Writer puts in a row group
// unless RowGroupRows says otherwise.
const defaultRowGroupRows = 64 << 10

// RowGroupRows sets how many rows each row group holds (the last may hold
// fewer; default 65,536). Row groups are the unit of parallel reading
// ([Workers]) and of what [OpenIndexed]'s view decodes for one Get, so data meant to
// be shuffled by index wants small row groups. It panics if n < 1.
func RowGroupRows(n int) WriteOption {
	positive("RowGroupRows", int64(n))
	return option.New(func(c *writeConfig) { c.groupRows = int64(n) })
}

// Snappy compresses the pages with snappy (the default is none).
func Snappy() WriteOption {
	return option.New(func(c *writeConfig) { c.codec = &pq.Snappy })
}

// Zstd compresses the pages with zstd (the default is none).
func Zstd() WriteOption {
	return option.New(func(c *writeConfig) { c.codec = &pq.Zstd })
}

// Writer writes Go structs of type T as the rows of one Parquet file,
// with the schema parquet-go derives from T (`parquet:"name"` tags;
// `parquet:",list"` makes a slice a LIST column). The file appears at its
// path only when Close succeeds: the rows go to a temporary file in the
// same directory, renamed over the path at the end, so a reader never sees
// a partial file and a failed write leaves what was there before.
type Writer[T any] struct {
	path string
	tmp  *os.File
	w    *pq.GenericWriter[T]
	err  error
	done bool
}

// Create starts writing a Parquet file of rows of type T at path.
func Create[T any](path string, opts ...WriteOption) (*Writer[T], error) {
	c := writeConfig{groupRows: defaultRowGroupRows}
	option.Apply(&c, opts)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	wopts := []pq.WriterOption{pq.MaxRowsPerRowGroup(c.groupRows)}
	wopts = append(wopts, noByteArrayBounds(pq.SchemaOf(new(T)))...)
	if c.codec != nil {
		wopts = append(wopts, pq.Compression(c.codec))
	}
	return &Writer[T]{path: path, tmp: tmp, w: pq.NewGenericWriter[T](tmp, wopts...)}, nil
}

// noByteArrayBounds returns the options that leave the minimum and maximum
// values out of the statistics of every byte-array column of schema: those
// of its column chunks in the footer and those of its pages in their
// headers. parquet-go copies them whole (only the column index truncates
// them), so one 40 MiB image would put 80 MiB into the footer, more than a
// reader accepts (MaxFooterBytes), and as much again into a page header.
// The bounds of a byte-array column (an image, a blob, a key) are of no use
// to tensorfeed's readers, which read every row; numeric columns keep
// theirs. The null counts stay.
func noByteArrayBounds(schema *pq.Schema) []pq.WriterOption {
	var opts []pq.WriterOption
	for _, path := range schema.Columns() {
		leaf, ok := schema.Lookup(path...)
		if !ok {
			continue
		}
		if k := leaf.Node.Type().Kind(); k == pq.ByteArray || k == pq.FixedLenByteArray {
			opts = append(opts, pq.SkipPageBounds(path...), pq.SkipPageStatistics(path...))
		}
	}
	return opts
}

// Write appends rows to the file.
func (w *Writer[T]) Write(rows ...T) error {
	if w.done {
		return errors.New("parquet: Write after Close")
	}
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(rows); err != nil {
		w.err = fmt.Errorf("parquet: %s: %w", w.path, err)
	}
	return w.err
}

// Flush ends the current row group: the rows written since the last one
// are written to the file as a row group of their own. parquet-go holds a
// row group's pages in memory until it ends, and a reader decodes one row
// group at a time, so a writer of large rows ends its row groups by bytes
// with Flush rather than waiting for [RowGroupRows] rows. Flush without
// rows written since the last one does nothing.
func (w *Writer[T]) Flush() error {
	if w.done {
		return errors.New("parquet: Flush after Close")
	}
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		w.err = fmt.Errorf("parquet: %s: %w", w.path, err)
	}
	return w.err
}

// Close writes the footer and moves the file to its path. After an error
// of Write or Close, the temporary file is removed and the path is left as
// it was.
func (w *Writer[T]) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	err := w.err
	if err == nil {
		err = w.w.Close()
	}
	if err == nil {
		err = w.tmp.Sync()
	}
	if cerr := w.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.tmp.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.tmp.Name())
		return fmt.Errorf("parquet: writing %s: %w", w.path, err)
	}
	return nil
}

// Abort discards what was written; the path is left as it was.
func (w *Writer[T]) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.tmp.Close()
	os.Remove(w.tmp.Name())
}
