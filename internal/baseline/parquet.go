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
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := pq.OpenFile(f, st.Size())
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
		if err := eachPage(chunks[img.ColumnIndex], func(p pq.Page) error {
			d := p.Data()
			v := d.Float()
			if ni+len(v) > len(images) {
				return fmt.Errorf("%s: more image values than %d", path, len(images))
			}
			ni += copy(images[ni:], v)
			return nil
		}); err != nil {
			return 0, err
		}
		if err := eachPage(chunks[lbl.ColumnIndex], func(p pq.Page) error {
			d := p.Data()
			v := d.Int64()
			if nl+len(v) > len(labels) {
				return fmt.Errorf("%s: more labels than %d", path, len(labels))
			}
			nl += copy(labels[nl:], v)
			return nil
		}); err != nil {
			return 0, err
		}
	}
	if ni != nl*width {
		return 0, fmt.Errorf("%s: %d image values for %d labels", path, ni, nl)
	}
	return nl, nil
}

// eachPage calls f with each page of the column chunk, releasing it after.
func eachPage(c pq.ColumnChunk, f func(pq.Page) error) error {
	pages := c.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = f(p)
		pq.Release(p)
		if err != nil {
			return err
		}
	}
}
