package pipeline_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

const benchPass = 1 << 14 // samples per pass

// BenchmarkBuilder compares a chain of cheap per-sample steps (a slice
// source, then alternately Map and Filter) built with stage functions
// directly, with the builder without stats and with the builder's per-step
// counters: the differences are the cost of the builder and of its stats
// per sample. With stats the builder counts steps+1 steps (the source too).
func BenchmarkBuilder(b *testing.B) {
	data := make([]int, benchPass)
	inc := func(x int) int { return x + 1 }
	keep := func(x int) bool { return x >= 0 }
	direct := func(steps int) source.Reader[int] {
		r := source.Slice(data)
		for i := range steps {
			if i%2 == 0 {
				r = stage.Map(r, inc)
			} else {
				r = stage.Filter(r, keep)
			}
		}
		return r
	}
	built := func(steps int, opts ...pipeline.Option) source.Reader[int] {
		p := pipeline.From(source.Slice(data), opts...)
		for i := range steps {
			if i%2 == 0 {
				p = pipeline.Map(p, inc)
			} else {
				p = p.Filter(keep)
			}
		}
		return p
	}
	for _, steps := range []int{0, 1, 4} {
		b.Run(fmt.Sprintf("steps=%d/direct", steps), func(b *testing.B) { sourcetest.Passes(b, direct(steps), benchPass) })
		b.Run(fmt.Sprintf("steps=%d/builder-nostats", steps), func(b *testing.B) {
			sourcetest.Passes(b, built(steps, pipeline.WithoutStats()), benchPass)
		})
		b.Run(fmt.Sprintf("steps=%d/builder", steps), func(b *testing.B) { sourcetest.Passes(b, built(steps), benchPass) })
	}
}

// BenchmarkStatsSlowSamples is the builder's counters on samples that take
// about 10 µs each, where every sample is timed.
func BenchmarkStatsSlowSamples(b *testing.B) {
	spin := func(x int) int {
		t := time.Now()
		for time.Since(t) < 10*time.Microsecond {
		}
		return x
	}
	data := make([]int, 256)
	b.Run("direct", func(b *testing.B) { sourcetest.Passes(b, stage.Map(source.Slice(data), spin), len(data)) })
	b.Run("builder", func(b *testing.B) {
		sourcetest.Passes(b, pipeline.Map(pipeline.From(source.Slice(data)), spin), len(data))
	})
}

// BenchmarkClock is the cost of one clock read, which the stats avoid on
// most samples.
func BenchmarkClock(b *testing.B) {
	b.ReportAllocs()
	var d time.Duration
	start := time.Now()
	for range b.N {
		d += time.Since(start)
	}
	_ = d
}

type payload = batch.Batch[float32]

// batches returns a reader of n batches of 64 samples, as pointers.
func batches(n int) source.Reader[*payload] {
	bs := make([]*payload, n)
	for i := range bs {
		bs[i] = &payload{Samples: make([]float32, 64)}
	}
	return source.Slice(bs)
}

// BenchmarkFanIn is the cost per batch of reading through FanIn: one
// reader and two, against a direct pass. Batches travel as pointers.
func BenchmarkFanIn(b *testing.B) {
	const n = 1024
	b.Run("direct", func(b *testing.B) { drainPassBatches(b, pipeline.From(batches(n)), n) })
	b.Run("fan-in-1", func(b *testing.B) {
		drainPassBatches(b, pipeline.FanIn([]source.Reader[*payload]{batches(n)}, 4), n)
	})
	b.Run("fan-in-2", func(b *testing.B) {
		drainPassBatches(b, pipeline.FanIn([]source.Reader[*payload]{batches(n / 2), batches(n / 2)}, 4), n)
	})
}

// drainPassBatches runs b.N passes of r, whose elements are batches of 64
// samples, and reports the cost per batch and per sample.
func drainPassBatches(b *testing.B, r source.Reader[*payload], perPass int) {
	b.Helper()
	sourcetest.Passes(b, r, perPass)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perPass), "ns/batch")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perPass*64), "ns/sample")
}
