package stage

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Map returns a reader that yields f(s) for every sample s of r, in order.
// It is PaddlePaddle's map_readers for one reader.
//
// f runs on the consumer's goroutine: Map starts no goroutine and allocates
// nothing per sample. A panic in f unwinds through the consumer's loop. An
// error from r is passed on once and ends the pass. For expensive functions
// use ParallelMap.
func Map[In, Out any](r source.Reader[In], f func(In) Out) source.Reader[Out] {
	if f == nil {
		panic("stage.Map: nil function")
	}
	return source.Follow("map", r, func(r source.Reader[In]) source.Reader[Out] {
		return source.Func[Out](func(ctx context.Context) iter.Seq2[Out, error] {
			return func(yield func(Out, error) bool) {
				for s, err := range r.All(ctx) {
					if err != nil {
						yieldErr(yield, err)
						return
					}
					if !yield(f(s), nil) {
						return
					}
				}
			}
		})
	})
}

// MapErr is Map for a function that can fail. The first error from f ends
// the pass; the consumer gets it once, wrapped with the index of the sample
// in the pass (errors.Is and errors.As still see the original).
func MapErr[In, Out any](r source.Reader[In], f func(In) (Out, error)) source.Reader[Out] {
	if f == nil {
		panic("stage.MapErr: nil function")
	}
	return source.Follow("map", r, func(r source.Reader[In]) source.Reader[Out] {
		return source.Func[Out](func(ctx context.Context) iter.Seq2[Out, error] {
			return func(yield func(Out, error) bool) {
				i := 0
				for s, err := range r.All(ctx) {
					if err != nil {
						yieldErr(yield, err)
						return
					}
					out, err := f(s)
					if err != nil {
						yieldErr(yield, fmt.Errorf("stage.MapErr: sample %d: %w", i, err))
						return
					}
					if !yield(out, nil) {
						return
					}
					i++
				}
			}
		})
	})
}
