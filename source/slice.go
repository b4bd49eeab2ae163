package source

import (
	"context"
	"iter"
)

// checkEvery is how many samples a synchronous source yields between two
// looks at its context: often enough to stop promptly, rare enough to cost
// nothing per sample.
const checkEvery = 256

// Slice returns a reader over the elements of s, in order, on every pass.
// The reader keeps s; the caller must not modify it while passes run.
func Slice[T any](s []T) Reader[T] {
	return Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			done := ctx.Done()
			for i, v := range s {
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

// poll reports whether done is closed. It looks only at every checkEvery-th
// sample i, and never when done is nil (a context that cannot be cancelled).
func poll(done <-chan struct{}, i int) bool {
	if i%checkEvery != 0 || done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}
