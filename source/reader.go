package source

import (
	"context"
	"iter"
)

// Reader is a re-iterable source of samples of type T. Each call to All
// starts a new, independent pass over the data.
//
// A pass that fails yields the error once (with the zero T) and stops.
// A pass ends early when the consumer stops ranging or ctx is cancelled;
// a reader whose pass is cancelled yields ctx.Err() once.
type Reader[T any] interface {
	All(ctx context.Context) iter.Seq2[T, error]
}

// Func adapts a function to the Reader interface. Stages and sources are
// usually written as a Func that builds each pass when it starts.
type Func[T any] func(ctx context.Context) iter.Seq2[T, error]

// All calls f(ctx).
func (f Func[T]) All(ctx context.Context) iter.Seq2[T, error] { return f(ctx) }

// Collect runs one pass of r and returns its samples, or the first error.
func Collect[T any](ctx context.Context, r Reader[T]) ([]T, error) {
	var out []T
	for s, err := range r.All(ctx) {
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Count runs one pass of r and returns the number of samples it yields.
func Count[T any](ctx context.Context, r Reader[T]) (int, error) {
	n := 0
	for _, err := range r.All(ctx) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Fail returns a pass that yields err once and stops. Readers use it when a
// pass cannot start, for example when a file cannot be opened.
func Fail[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}
