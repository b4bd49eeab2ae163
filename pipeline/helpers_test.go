package pipeline_test

import (
	"context"
	"errors"
	"iter"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

var errBoom = errors.New("boom")

// count returns the reader 0, 1, ..., n-1.
func count(n int) source.Reader[int] {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return source.Slice(s)
}

// endless returns a reader that counts up until its context is cancelled.
func endless() source.Reader[int] {
	return source.Generate(-1, 1, func(_ *rand.Rand, i int) int { return i })
}

// failAfter yields 0..k-1 and then err.
func failAfter(k int, err error) source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range k {
				if !yield(i, nil) {
					return
				}
			}
			yield(0, err)
		}
	})
}

// collect runs one pass and returns its samples and the error it ended
// with. It fails the test when a pass yields anything after an error.
func collect[T any](t *testing.T, ctx context.Context, r source.Reader[T]) ([]T, error) {
	t.Helper()
	var out []T
	var perr error
	for v, err := range r.All(ctx) {
		if perr != nil {
			t.Fatalf("pass yielded after its error %v", perr)
		}
		if err != nil {
			perr = err
			continue
		}
		out = append(out, v)
	}
	return out, perr
}

func seq(lo, hi int) []int {
	out := []int{}
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

func sorted(s []int) []int {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
