package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/internal/baseline"
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
// loop (each page's typed values copied out). The reader reuses its
// pages (ReuseBuffer), as the plain loop does. The file, uncompressed, is
// written at run time.
func parquetRows(cfg config) ([]Row, error) {
	rows := cfg.size(16384, 65536, 256) // short: about 51 MB
	groupRows := cfg.size(4096, 4096, 64)
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
		r := parquet.ReadColumns(path, cols, parquet.Workers(workers), parquet.ReuseBuffer())
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
			m, err := baseline.ParquetColumns(path, parquetWidth, images, labels)
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
			"ReadColumns(Float32(image, 784), Int64(label)) with ReuseBuffer, rows copied into one []float32; "+
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
