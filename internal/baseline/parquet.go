// Package baseline holds the plain loops that benchmarks compare
// tensorfeed with, written once for the go test benchmarks of a package
// and the rows of the bench program: the loop a skilled user writes for
// the same work without the library.
package baseline

import (
	"fmt"
	"io"
	"os"

	pq "github.com/parquet-go/parquet-go"
)

// ParquetColumns is the loop a parquet-go user writes to read the image
// column (a list of width float32 values a row) and the int64 label
// column of a file into tensors: row groups in order, each page's typed
// values copied out, checking only that they fit. It returns the number
// of rows.
func ParquetColumns(path string, width int, images []float32, labels []int64) (int, error) {
	f, size, err := Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	pf, err := pq.OpenFile(f, size)
	if err != nil {
		return 0, err
	}
	img, ok1 := pf.Schema().Lookup("image", "list", "element")
	lbl, ok2 := pf.Schema().Lookup("label")
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("%s: no image or label column", path)
	}
	ni, nl := 0, 0
	for _, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		if ni, err = copyPages(chunks[img.ColumnIndex], images, ni, func(p pq.Page) []float32 { d := p.Data(); return d.Float() }); err != nil {
			return 0, fmt.Errorf("%s: image: %w", path, err)
		}
		if nl, err = copyPages(chunks[lbl.ColumnIndex], labels, nl, func(p pq.Page) []int64 { d := p.Data(); return d.Int64() }); err != nil {
			return 0, fmt.Errorf("%s: label: %w", path, err)
		}
	}
	if ni != nl*width {
		return 0, fmt.Errorf("%s: %d image values for %d labels", path, ni, nl)
	}
	return nl, nil
}

// Open opens the file at path, as a plain loop that reads it at offsets
// does, and returns it with its size.
func Open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// copyPages copies the typed values of each page of the column chunk
// (its values as T) into dst from index n, releasing each page after, and
// returns the index after the last value copied.
func copyPages[T any](c pq.ColumnChunk, dst []T, n int, values func(pq.Page) []T) (int, error) {
	pages := c.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		v := values(p)
		if n+len(v) > len(dst) {
			pq.Release(p)
			return n, fmt.Errorf("more values than %d", len(dst))
		}
		n += copy(dst[n:], v)
		pq.Release(p)
	}
}
