package gostreams_test

import (
	"context"
	"errors"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

var errBoom = errors.New("boom")

// panicAfter yields 0..k-1 and then panics with v.
func panicAfter(k int, v any) source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range k {
				if !yield(i, nil) {
					return
				}
			}
			panic(v)
		}
	})
}
