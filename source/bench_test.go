package source_test

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

const benchSamples = 1 << 16

func BenchmarkSlice(b *testing.B) {
	sourcetest.Passes(b, source.Slice(lo.Range(benchSamples)), benchSamples)
}

func BenchmarkGenerate(b *testing.B) {
	sourcetest.Passes(b, source.Generate(benchSamples, 1, func(r *rand.Rand, _ int) uint64 { return r.Uint64() }), benchSamples)
}

func BenchmarkUniform(b *testing.B) {
	const dim = 100 // a GAN's noise vector
	r := source.Uniform(dim, -1, 1, 1)
	b.ReportAllocs()
	n := 0
	for _, err := range r.All(context.Background()) {
		if err != nil {
			b.Fatal(err)
		}
		if n++; n == b.N {
			break
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/sample")
}

// BenchmarkNewRand is the cost of a per-sample generator (augmentation).
func BenchmarkNewRand(b *testing.B) {
	b.ReportAllocs()
	var sink uint64
	i := 0
	for b.Loop() {
		sink += source.NewRand(1, 2, i).Uint64()
		i++
	}
	_ = sink
}

func shards(readers, perReader int) []source.Reader[int] {
	var rs []source.Reader[int]
	for range readers {
		rs = append(rs, source.Slice(lo.Range(perReader)))
	}
	return rs
}

func BenchmarkConcurrent(b *testing.B) {
	for _, readers := range []int{1, 4} {
		for _, buffer := range []int{1, 64, 1024} {
			b.Run(fmt.Sprintf("readers=%d/buffer=%d", readers, buffer), func(b *testing.B) {
				sourcetest.Passes(b, source.Concurrent(shards(readers, benchSamples/readers), buffer), benchSamples)
			})
			// What a user would write by hand: one goroutine per reader and a
			// channel that carries every sample.
			b.Run(fmt.Sprintf("readers=%d/buffer=%d/channel", readers, buffer), func(b *testing.B) {
				sourcetest.Passes(b, channelFanIn(shards(readers, benchSamples/readers), buffer), benchSamples)
			})
		}
	}
}

func BenchmarkFiles(b *testing.B) {
	const files = 16
	paths := make([]string, files)
	for i := range paths {
		paths[i] = fmt.Sprint(i)
	}
	data := lo.Range(benchSamples / files)
	open := func(string) source.Reader[int] { return source.Slice(data) }
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			sourcetest.Passes(b, source.Files(paths, workers, open, 1024), benchSamples)
		})
	}
}

// channelFanIn is the plain channel version of Concurrent, for comparison
// (it handles no errors; the benchmark's readers have none).
func channelFanIn[T any](readers []source.Reader[T], buffer int) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			ctx, cancel := context.WithCancel(ctx)
			ch := make(chan T, buffer)
			var wg sync.WaitGroup
			defer func() { cancel(); wg.Wait() }()
			for _, r := range readers {
				wg.Go(func() {
					for v := range r.All(ctx) {
						select {
						case ch <- v:
						case <-ctx.Done():
							return
						}
					}
				})
			}
			go func() { wg.Wait(); close(ch) }()
			for v := range ch {
				if !yield(v, nil) {
					return
				}
			}
		}
	})
}
