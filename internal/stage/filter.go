package stage

import (
	"context"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Filter returns a reader that yields the samples of r for which keep
// returns true, in order.
//
// keep runs on the consumer's goroutine; Filter starts no goroutine and
// allocates nothing per sample. An error from r is passed on once and ends
// the pass. To drop bad records, return an error from a MapErr instead when
// they must not be lost silently, or count them in keep.
func Filter[T any](r source.Reader[T], keep func(T) bool) source.Reader[T] {
	if keep == nil {
		panic("stage.Filter: nil function")
	}
	return source.Replayed("filter", source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			for s, err := range r.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				if keep(s) && !yield(s, nil) {
					return
				}
			}
		}
	}), r)
}
