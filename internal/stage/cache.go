package stage

import (
	"context"
	"iter"
	"sync"

	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/source"
)

// Cache returns a reader that keeps the first complete pass of r in memory
// and replays it on every later pass without touching r again.
//
// Only a pass that ran to its end is kept: a pass that failed, was cancelled
// or was stopped early by the consumer leaves the cache empty, and the next
// pass reads r again. Passes may run concurrently; each one that starts
// before the cache is filled reads r itself, and the first to complete fills
// it.
//
// Replayed samples are copies of the cached values, so for pointer, slice or
// map samples every pass shares the same underlying data: consumers must not
// modify it. The cache holds a whole pass, so put Cache after the expensive,
// deterministic steps (decoding) and before the random ones (Shuffle,
// augmentation), which then still vary by epoch. The epoch of a replayed pass
// does not reach r.
func Cache[T any](r source.Reader[T]) source.Reader[T] {
	c := &cacheState[T]{}
	// A resumed pass replays: from memory once a pass is cached.
	return source.Replayed("cache", source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			if data, ok := c.get(); ok {
				done := ctx.Done()
				for i, s := range data {
					if scope.Stopped(done, i) {
						yieldErr(yield, ctx.Err())
						return
					}
					if !yield(s, nil) {
						return
					}
				}
				return
			}
			var data []T
			for s, err := range r.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				data = append(data, s)
				if !yield(s, nil) {
					return
				}
			}
			c.put(data)
		}
	}), r)
}

// cacheState is the shared memory of a Cache reader.
type cacheState[T any] struct {
	mu   sync.Mutex
	data []T
	full bool
}

func (c *cacheState[T]) get() ([]T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.data, c.full
}

// put keeps data unless another pass completed first.
func (c *cacheState[T]) put(data []T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.full {
		c.data, c.full = data[:len(data):len(data)], true
	}
}
