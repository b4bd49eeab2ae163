package source

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/internal/scope"
)

// Generate returns a reader whose passes call next for each sample, with a
// generator derived from (seed, epoch) and the sample's index in the pass.
// n is the number of samples per pass; n < 0 means endless (stop it with
// a Take step, a Zip with a finite reader, or the context).
//
// This is PaddlePaddle's reader_creator_random_image: a seeded, repeatable
// stream of random samples, different in every epoch.
func Generate[T any](n int, seed uint64, next func(r *rand.Rand, index int) T) Reader[T] {
	var epochs Epochs
	// The generator is one stream per epoch, so a resumed pass replays the
	// calls of next before its position: it computes, reads nothing.
	return Replayed[T, T](fmt.Sprintf("generate(%d,seed=%d)", n, seed), Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			ctx, epoch := epochs.Start(ctx)
			r := NewRand(seed, epoch, -1)
			done := ctx.Done()
			for i := 0; n < 0 || i < n; i++ {
				if scope.Stopped(done, i) {
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
// are uniform in [lo, hi): the noise input of a GAN. Each sample is a
// slice that the consumer owns and may keep.
//
// The samples of a pass are cut from slabs of uniformSlab vectors, so a
// pass allocates once per uniformSlab samples rather than once per
// sample; a kept sample keeps its slab alive, the memory of
// uniformSlab*dim float32s at most.
func Uniform(dim int, lo, hi float32, seed uint64) Reader[[]float32] {
	if dim < 0 {
		panic(fmt.Sprintf("source.Uniform: negative dimension %d", dim))
	}
	var epochs Epochs
	span := hi - lo
	return Replayed[[]float32, []float32](fmt.Sprintf("uniform(%d,%g,%g,seed=%d)", dim, lo, hi, seed), Func[[]float32](func(ctx context.Context) iter.Seq2[[]float32, error] {
		return func(yield func([]float32, error) bool) {
			ctx, epoch := epochs.Start(ctx)
			r := NewRand(seed, epoch, -1)
			done := ctx.Done()
			var slab []float32
			for i := 0; ; i++ {
				if scope.Stopped(done, i) {
					yield(nil, ctx.Err())
					return
				}
				if len(slab) < dim {
					slab = make([]float32, uniformSlab*dim)
				}
				v := slab[:dim:dim]
				slab = slab[dim:]
				for k := range v {
					v[k] = lo + span*r.Float32()
				}
				if !yield(v, nil) {
					return
				}
			}
		}
	}))
}

// uniformSlab is how many vectors of Uniform share one allocation.
const uniformSlab = 256

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
			if scope.Stopped(done, i-c.from) {
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
