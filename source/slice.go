package source

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/internal/scope"
)

// Slice returns a reader over the elements of s, in order, on every pass.
// The reader keeps s; the caller must not modify it while passes run.
func Slice[T any](s []T) Reader[T] { return &sliceReader[T]{s: s} }

// sliceReader yields s[from:]; its states count from the start of s.
type sliceReader[T any] struct {
	s    []T
	from int
}

func (r *sliceReader[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		done := ctx.Done()
		for i, v := range r.s[min(r.from, len(r.s)):] {
			if scope.Stopped(done, i) {
				var zero T
				yield(zero, ctx.Err())
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

// Elements returns the elements every pass of r yields: stages that read
// a slice reader beside another (Zip) index the slice instead of running a
// pass. The slice is r's own: it must not be modified.
func (r *sliceReader[T]) Elements() []T { return r.s[min(r.from, len(r.s)):] }

func (r *sliceReader[T]) kind() string { return fmt.Sprintf("slice(%d)", len(r.s)) }

// StateAt returns {slice(len), [index reached]}: at most len, the end of
// the pass, also after more samples than the pass has.
func (r *sliceReader[T]) StateAt(_ int, n int64) (State, error) {
	return State{Kind: r.kind(), Pos: []int64{min(int64(r.from)+n, int64(max(len(r.s), r.from)))}}, nil
}

// Resume continues at the index of st, reading nothing before it. An index
// past the end of the slice is refused.
func (r *sliceReader[T]) Resume(st State) (Reader[T], error) {
	if err := st.Check(r.kind(), 1, 0); err != nil {
		return nil, err
	}
	if st.Pos[0] > int64(len(r.s)) {
		return nil, &StateError{Want: r.kind(), Got: st, Field: "pos[0]", Why: fmt.Sprintf("index %d is past the end of the slice (%d samples)", st.Pos[0], len(r.s))}
	}
	return &sliceReader[T]{s: r.s, from: int(st.Pos[0])}, nil
}
