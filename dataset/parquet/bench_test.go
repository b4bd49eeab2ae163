package parquet_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
)

const (
	benchRows  = 4096
	benchWidth = 784
)

// benchFile writes benchRows MNIST-shaped rows (784 float32 values and an
// int64 label) in row groups of 1024 rows.
func benchFile(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.parquet")
	rows := digits(benchRows, benchWidth)
	if err := parquet.WriteFile(path, rows, parquet.RowGroupRows(1024)); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadColumns reads the image and label columns into one
// []float32 and one []int64, with ReadColumns and with the plain
// parquet-go loop (pages' typed data copied out, row groups in order).
func BenchmarkReadColumns(b *testing.B) {
	path := benchFile(b)
	images := make([]float32, benchRows*benchWidth)
	labels := make([]int64, benchRows)
	ctx := context.Background()
	bytes := int64(benchRows * (benchWidth*4 + 8))
	b.Run("ReadColumns", func(b *testing.B) {
		r := parquet.ReadColumns([]string{path}, []parquet.Column{parquet.Float32("image", benchWidth), parquet.Int64("label")})
		b.SetBytes(bytes)
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for row, err := range r.All(ctx) {
				if err != nil {
					b.Fatal(err)
				}
				copy(images[n*benchWidth:(n+1)*benchWidth], row.F32[0])
				labels[n] = row.I64[1][0]
				n++
			}
			if n != benchRows {
				b.Fatalf("%d rows", n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
	})
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportAllocs()
		for b.Loop() {
			if n, err := plainColumns(path, images, labels); err != nil || n != benchRows {
				b.Fatal(n, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
	})
}

// plainColumns is the loop a parquet-go user writes to read the image and
// label columns of a file of fixed-length rows: each page's typed values
// copied into the tensors, row groups in order. It checks only that the
// values fit. It returns the number of rows.
func plainColumns(path string, images []float32, labels []int64) (int, error) {
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
	if ni != nl*benchWidth {
		return 0, fmt.Errorf("%s: %d image values for %d labels", path, ni, nl)
	}
	return nl, nil
}

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
