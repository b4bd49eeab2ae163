package parquet_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/internal/baseline"
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
	if err := writeFile(path, rows, parquet.RowGroupRows(1024)); err != nil {
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
		r := parquet.ReadColumns(path, []parquet.Column{parquet.Float32("image", benchWidth), parquet.Int64("label")})
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
			if n, err := baseline.ParquetColumns(path, benchWidth, images, labels); err != nil || n != benchRows {
				b.Fatal(n, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
	})
}
