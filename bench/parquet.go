package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
)

// parquetWidth is the length of the float32 list column of the parquet
// rows: an MNIST image.
const parquetWidth = 784

// parquetPoint is one row of the parquet file: a list<float> column of
// parquetWidth values and an int64 label.
type parquetPoint struct {
	Image []float32 `parquet:"image,list"`
	Label int64     `parquet:"label"`
}

// parquetRows measures reading the image and label columns of a Parquet
// file of MNIST-shaped rows into one []float32 and one []int64, with
// parquet.ReadColumns (one and two workers) against the plain parquet-go
// loop (each page's typed values copied out). The file, uncompressed, is
// written at run time.
func parquetRows(cfg config) ([]Row, error) {
	rows, groupRows := 16384, 4096 // about 51 MB
	switch {
	case cfg.tiny:
		rows, groupRows = 256, 64
	case cfg.long:
		rows = 65536
	}
	dir, err := os.MkdirTemp("", "tensorfeed-bench-parquet-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "points.parquet")
	w, err := parquet.Create[parquetPoint](path, parquet.RowGroupRows(groupRows))
	if err != nil {
		return nil, err
	}
	image := make([]float32, parquetWidth)
	for i := range rows {
		for j := range image {
			image[j] = float32((i*7+j)%255) / 255
		}
		if err := w.Write(parquetPoint{Image: image, Label: int64(i % 10)}); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	outBytes := int64(rows) * (parquetWidth*4 + 8)
	images := make([]float32, rows*parquetWidth)
	labels := make([]int64, rows)
	floor, err := measureFloor(cfg.cheapReps(), outBytes, 128*parquetWidth*4)
	if err != nil {
		return nil, err
	}
	cols := []parquet.Column{parquet.Float32("image", parquetWidth), parquet.Int64("label")}
	ctx := context.Background()
	var out []Row
	for _, workers := range []int{1, 2} {
		r := parquet.ReadColumns([]string{path}, cols, parquet.Workers(workers))
		var got, want float64
		var n int
		rs, err := measureEach(cfg.cheapReps(), func() error {
			n = 0
			for row, err := range r.All(ctx) {
				if err != nil {
					return err
				}
				if n >= rows {
					return fmt.Errorf("parquet: more than %d rows", rows)
				}
				copy(images[n*parquetWidth:(n+1)*parquetWidth], row.F32[0])
				labels[n] = row.I64[1][0]
				n++
			}
			got = consumeParquet(images, labels)
			return nil
		}, func() error {
			m, err := plainParquet(path, images, labels)
			if err == nil && m != rows {
				err = fmt.Errorf("parquet: plain loop read %d rows, want %d", m, rows)
			}
			want = consumeParquet(images, labels)
			return err
		})
		if err != nil {
			return nil, err
		}
		if n != rows || got != want {
			return nil, fmt.Errorf("parquet: library read %d rows (checksum %v), plain loop checksum %v, want %d rows", n, got, want, rows)
		}
		row := newRow("parquet", workers, rows, outBytes, rs[0], rs[1], floor)
		row.Variant = fmt.Sprintf("%d workers", workers)
		row.Note = fmt.Sprintf("%d rows of list<float>[784] + int64 in row groups of %d (%s MB file, uncompressed): "+
			"ReadColumns(Float32(image, 784), Int64(label)), rows copied into one []float32; "+
			"plain: parquet-go pages' typed values (Page.Data) copied in", rows, groupRows, sizeMB(path))
		out = append(out, row)
	}
	return out, nil
}

// consumeParquet folds the decoded columns into a checksum.
func consumeParquet(images []float32, labels []int64) float64 {
	var sum float64
	for i := 0; i < len(images); i += 97 {
		sum += float64(images[i])
	}
	for _, l := range labels {
		sum += float64(l) * 1000
	}
	return sum
}

// plainParquet is the loop a parquet-go user writes to read the image and
// label columns of a file of fixed-length rows into tensors: row groups in
// order, each page's typed values copied out, checking only that they
// fit. It returns the number of rows.
func plainParquet(path string, images []float32, labels []int64) (int, error) {
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
		if err := eachParquetPage(chunks[img.ColumnIndex], func(p pq.Page) error {
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
		if err := eachParquetPage(chunks[lbl.ColumnIndex], func(p pq.Page) error {
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
	if ni != nl*parquetWidth {
		return 0, fmt.Errorf("%s: %d image values for %d labels", path, ni, nl)
	}
	return nl, nil
}

// eachParquetPage calls f with each page of the column chunk, releasing it
// after.
func eachParquetPage(c pq.ColumnChunk, f func(pq.Page) error) error {
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
