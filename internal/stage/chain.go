package stage

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Chain returns a reader whose passes yield one pass of each reader in rs,
// one after the other: PaddlePaddle's chain, io.MultiReader for readers.
// Every pass of the chain starts one pass of each reader, in order, with
// the same context. An error from any of them is passed on once and ends
// the pass; the readers after it are not started. Chain of no readers is
// empty.
func Chain[T any](rs ...source.Reader[T]) source.Reader[T] {
	rs = append([]source.Reader[T](nil), rs...)
	for i, r := range rs {
		if r == nil {
			panic(fmt.Sprintf("stage.Chain: reader %d is nil", i))
		}
	}
	// The readers' lengths are known only by reading them, so a resumed
	// chain replays its pass.
	return source.Replayed("chain", source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			for _, r := range rs {
				for s, err := range r.All(ctx) {
					if err != nil {
						yieldErr(yield, err)
						return
					}
					if !yield(s, nil) {
						return
					}
				}
			}
		}
	}), rs...)
}
