package stage

import (
	"context"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Indexed is a sample with its position in the pass that produced it.
type Indexed[T any] struct {
	Index int // 0 for the first sample of every pass
	Value T
}

// Enumerate returns a reader that pairs every sample of r with its index in
// the pass, counting from 0 on every pass. Put it before Shuffle to keep
// each sample's original position, or before ParallelMap to derive
// per-sample randomness from the index (source.NewRand(seed, epoch, index)).
func Enumerate[T any](r source.Reader[T]) source.Reader[Indexed[T]] {
	return source.Func[Indexed[T]](func(ctx context.Context) iter.Seq2[Indexed[T], error] {
		return func(yield func(Indexed[T], error) bool) {
			i := 0
			for s, err := range r.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				if !yield(Indexed[T]{Index: i, Value: s}, nil) {
					return
				}
				i++
			}
		}
	})
}
