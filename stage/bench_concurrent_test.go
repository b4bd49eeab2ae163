package stage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/stage"
)

// concBenchSamples is the length of one pass in the benchmarks of the
// concurrent stages.
const concBenchSamples = 1 << 16

func concBenchInts() []int {
	s := make([]int, concBenchSamples)
	for i := range s {
		s[i] = i
	}
	return s
}

// concDrain ranges one pass of r per b.N iteration and reports the cost per
// sample.
func concDrain[T any](b *testing.B, r source.Reader[T], perPass int) {
	b.Helper()
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		n := 0
		for _, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != perPass {
			b.Fatalf("pass yielded %d samples, want %d", n, perPass)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perPass), "ns/sample")
}

func BenchmarkConcSliceBaseline(b *testing.B) {
	concDrain(b, source.Slice(concBenchInts()), concBenchSamples)
}

func BenchmarkBuffered(b *testing.B) {
	for _, n := range []int{1, 64, 1024} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			concDrain(b, stage.Buffered(source.Slice(concBenchInts()), n), concBenchSamples)
		})
	}
}

// concWork is a deterministic per-sample function that costs about iters
// nanoseconds of arithmetic.
func concWork(iters int) func(int) (int, error) {
	return func(x int) (int, error) {
		h := uint64(x)
		for range iters {
			h = h*6364136223846793005 + 1442695040888963407
		}
		return int(h >> 1), nil
	}
}

func BenchmarkParallelMap(b *testing.B) {
	for _, iters := range []int{0, 1000} {
		n := concBenchSamples
		if iters > 0 {
			n = 4096
		}
		in := source.Slice(concBenchInts()[:n])
		f := concWork(iters)
		b.Run(fmt.Sprintf("work=%d/MapErr", iters), func(b *testing.B) {
			concDrain(b, stage.MapErr(in, f), n)
		})
		for _, w := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("work=%d/workers=%d", iters, w), func(b *testing.B) {
				concDrain(b, stage.ParallelMap(in, w, f), n)
			})
			b.Run(fmt.Sprintf("work=%d/workers=%d/inflight=1024", iters, w), func(b *testing.B) {
				concDrain(b, stage.ParallelMap(in, w, f, stage.InFlight(1024)), n)
			})
			b.Run(fmt.Sprintf("work=%d/workers=%d/unordered", iters, w), func(b *testing.B) {
				concDrain(b, stage.ParallelMap(in, w, f, stage.Unordered()), n)
			})
		}
	}
}
