package stage_test

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// concBenchSamples is the length of one pass in the benchmarks of the
// concurrent stages.
const concBenchSamples = 1 << 16

func BenchmarkBuffered(b *testing.B) {
	for _, n := range []int{1, 4, 16, 64, 1024} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sourcetest.Passes(b, stage.Buffered(source.Slice(lo.Range(concBenchSamples)), n), concBenchSamples)
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

// BenchmarkParallelMap measures ParallelMap against MapErr (the plain loop)
// and against concChannelParallelMap, the one-channel-hop-per-sample design a
// user would write by hand. "chunk=1" forces one sample per hand-over (a
// window of two samples per worker).
func BenchmarkParallelMap(b *testing.B) {
	for _, iters := range []int{0, 1000} {
		n := concBenchSamples
		if iters > 0 {
			n = 4096
		}
		in := source.Slice(lo.Range(concBenchSamples)[:n])
		f := concWork(iters)
		b.Run(fmt.Sprintf("work=%d/MapErr", iters), func(b *testing.B) {
			sourcetest.Passes(b, stage.MapErr(in, f), n)
		})
		for _, w := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("work=%d/workers=%d", iters, w), func(b *testing.B) {
				sourcetest.Passes(b, stage.ParallelMap(in, w, f), n)
			})
			b.Run(fmt.Sprintf("work=%d/workers=%d/inflight=1024", iters, w), func(b *testing.B) {
				sourcetest.Passes(b, stage.ParallelMap(in, w, f, stage.InFlight(1024)), n)
			})
			b.Run(fmt.Sprintf("work=%d/workers=%d/chunk=1", iters, w), func(b *testing.B) {
				sourcetest.Passes(b, stage.ParallelMap(in, w, f, stage.InFlight(2*w)), n)
			})
			b.Run(fmt.Sprintf("work=%d/workers=%d/unordered", iters, w), func(b *testing.B) {
				sourcetest.Passes(b, stage.ParallelMap(in, w, f, stage.Unordered()), n)
			})
			b.Run(fmt.Sprintf("work=%d/workers=%d/channel", iters, w), func(b *testing.B) {
				sourcetest.Passes(b, concChannelParallelMap(in, w, f, 16*w), n)
			})
		}
	}
}

// concChannelParallelMap is an ordered parallel map with a channel hop per
// sample each way and a future per sample, for comparison only (it ignores
// errors).
func concChannelParallelMap[In, Out any](r source.Reader[In], workers int, f func(In) (Out, error), window int) source.Reader[Out] {
	type job struct {
		in  In
		out chan Out
	}
	return source.Func[Out](func(ctx context.Context) iter.Seq2[Out, error] {
		return func(yield func(Out, error) bool) {
			ctx, cancel := context.WithCancel(ctx)
			var wg sync.WaitGroup
			defer func() { cancel(); wg.Wait() }()
			jobs := make(chan job)
			order := make(chan chan Out, window)
			wg.Go(func() {
				defer close(order)
				defer close(jobs)
				for v := range r.All(ctx) {
					j := job{v, make(chan Out, 1)}
					select {
					case order <- j.out:
					case <-ctx.Done():
						return
					}
					select {
					case jobs <- j:
					case <-ctx.Done():
						return
					}
				}
			})
			for range workers {
				wg.Go(func() {
					for j := range jobs {
						y, _ := f(j.in)
						j.out <- y
					}
				})
			}
			for fut := range order {
				if !yield(<-fut, nil) {
					return
				}
			}
		}
	})
}
