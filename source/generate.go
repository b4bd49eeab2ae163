package source

import (
	"context"
	"iter"
	"math/rand/v2"
)

// Generate returns a reader whose passes call next for each sample, with a
// generator derived from (seed, epoch) and the sample's index in the pass.
// n is the number of samples per pass; n < 0 means endless (stop it with
// stage.Take, a Zip with a finite reader, or the context).
//
// This is PaddlePaddle's reader_creator_random_image: a seeded, repeatable
// stream of random samples, different in every epoch.
func Generate[T any](n int, seed uint64, next func(r *rand.Rand, index int) T) Reader[T] {
	var epochs Epochs
	return Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			ctx, epoch := epochs.Start(ctx)
			r := NewRand(seed, epoch, -1)
			done := ctx.Done()
			for i := 0; n < 0 || i < n; i++ {
				if poll(done, i) {
					var zero T
					yield(zero, ctx.Err())
					return
				}
				if !yield(next(r, i), nil) {
					return
				}
			}
		}
	})
}

// Uniform returns an endless reader of vectors of length dim whose elements
// are uniform in [lo, hi): the noise input of a GAN. Each sample is a new
// slice that the consumer owns.
func Uniform(dim int, lo, hi float32, seed uint64) Reader[[]float32] {
	return Generate(-1, seed, func(r *rand.Rand, _ int) []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = lo + (hi-lo)*r.Float32()
		}
		return v
	})
}

// Constant returns a reader that yields v n times per pass, or endlessly when
// n < 0: PaddlePaddle's reader_creator_bool, for the true / false labels of a
// GAN's discriminator.
func Constant[T any](v T, n int) Reader[T] {
	return Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			done := ctx.Done()
			for i := 0; n < 0 || i < n; i++ {
				if poll(done, i) {
					var zero T
					yield(zero, ctx.Err())
					return
				}
				if !yield(v, nil) {
					return
				}
			}
		}
	})
}
