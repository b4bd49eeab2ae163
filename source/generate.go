package source

import (
	"context"
	"fmt"
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
	// The generator is one stream per epoch, so a resumed pass replays the
	// calls of next before its position: it computes, reads nothing.
	return Replayed(fmt.Sprintf("generate(%d,seed=%d)", n, seed), Func[T](func(ctx context.Context) iter.Seq2[T, error] {
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
	}))
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
func Constant[T any](v T, n int) Reader[T] { return &constant[T]{v: v, n: n} }

type constant[T any] struct {
	v       T
	n, from int
}

func (c *constant[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		done := ctx.Done()
		for i := c.from; c.n < 0 || i < c.n; i++ {
			if poll(done, i-c.from) {
				var zero T
				yield(zero, ctx.Err())
				return
			}
			if !yield(c.v, nil) {
				return
			}
		}
	}
}

func (c *constant[T]) kind() string { return fmt.Sprintf("constant(%d)", c.n) }

// StateAt returns {constant(n), [count]}.
func (c *constant[T]) StateAt(_ int, n int64) (State, error) {
	return State{Kind: c.kind(), Pos: []int64{int64(c.from) + n}}, nil
}

// Resume continues the count of st.
func (c *constant[T]) Resume(st State) (Reader[T], error) {
	if err := st.Check(c.kind(), 1, 0); err != nil {
		return nil, err
	}
	return &constant[T]{v: c.v, n: c.n, from: int(st.Pos[0])}, nil
}
