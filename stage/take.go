package stage

import (
	"context"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Take returns a reader whose passes yield at most the first n samples of a
// pass of r: PaddlePaddle's firstn. The pass of r is stopped as soon as the
// n-th sample has been yielded, so Take ends endless readers. Take(r, 0)
// yields nothing and does not start a pass of r. It panics if n < 0.
func Take[T any](r source.Reader[T], n int) source.Reader[T] {
	if n < 0 {
		panic("stage.Take: negative count")
	}
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			if n == 0 {
				return
			}
			i := 0
			for s, err := range r.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				if !yield(s, nil) {
					return
				}
				if i++; i == n {
					return
				}
			}
		}
	})
}

// Skip returns a reader whose passes drop the first n samples of a pass of r
// and yield the rest. An error from r is passed on even while skipping.
// It panics if n < 0.
func Skip[T any](r source.Reader[T], n int) source.Reader[T] {
	if n < 0 {
		panic("stage.Skip: negative count")
	}
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			i := 0
			for s, err := range r.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				if i < n {
					i++
					continue
				}
				if !yield(s, nil) {
					return
				}
			}
		}
	})
}
