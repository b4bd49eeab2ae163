package batch_test

import (
	"context"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// benchPass is the number of samples per pass: 100 batches of 128 and a
// short last one, so every policy has something to do at the end.
const benchPass, benchSize = 100*128 + 17, 128

// runBatches ranges over b.N passes of r and reports the cost per sample.
func runBatches[T any](b *testing.B, r source.Reader[batch.Batch[T]]) {
	b.ReportAllocs()
	ctx := context.Background()
	n := 0
	for b.Loop() {
		for bt, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			n += len(bt.Samples)
			bt.Release() // does nothing unless r recycles
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/sample")
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		for bt := range r.All(ctx) {
			bt.Release()
		}
	}))/benchPass, "allocs/sample")
}

type image struct {
	pix   []float32
	label int64
}

func BenchmarkOf(b *testing.B) {
	samples := make([]image, benchPass)
	for i := range samples {
		samples[i] = image{pix: make([]float32, 784), label: int64(i % 10)}
	}
	src := source.Slice(samples)
	for _, p := range []batch.Policy{batch.Keep, batch.Drop, batch.Pad, batch.RollOver} {
		b.Run(p.String(), func(b *testing.B) { runBatches(b, batch.Of(src, benchSize, p)) })
	}
	b.Run("fill", func(b *testing.B) { runBatches(b, batch.OfFill(src, benchSize, image{})) })
	b.Run("keep-recycling", func(b *testing.B) { runBatches(b, batch.Of(src, benchSize, batch.Keep, batch.Recycling())) })
	// Batches handed to another goroutine, as a prefetching pipeline does.
	b.Run("buffered", func(b *testing.B) { runBatches(b, stage.Buffered(batch.Of(src, benchSize, batch.Keep), 2)) })
	b.Run("buffered-recycling", func(b *testing.B) {
		runBatches(b, stage.Buffered(batch.Of(src, benchSize, batch.Keep, batch.Recycling()), 2))
	})
	b.Run("wholepass", func(b *testing.B) { runBatches(b, batch.Of(src, 0, batch.Keep)) })
	// The loop a user would write by hand, for comparison.
	b.Run("plainloop", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			var bt []image
			for _, s := range samples {
				if bt == nil {
					bt = make([]image, 0, benchSize)
				}
				bt = append(bt, s)
				if len(bt) == benchSize {
					n += len(bt)
					bt = nil
				}
			}
			n += len(bt)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/sample")
	})
}

func BenchmarkPadSeqs(b *testing.B) {
	rows := make([][]int64, benchSize)
	for i := range rows {
		rows[i] = make([]int64, 20+i%40)
	}
	bt := batch.Batch[[]int64]{Samples: rows}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := padOne(bt, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchSize), "ns/sample")
}
