package pipeline_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

var errBoom = errors.New("boom")

// count returns the reader 0, 1, ..., n-1.
func count(n int) source.Reader[int] { return fixture.Count(n) }

// endless returns a reader that counts up until its context is cancelled.
func endless() source.Reader[int] { return fixture.Endless(nil) }

// failAfter yields 0..k-1 and then err.
func failAfter(k int, err error) source.Reader[int] { return sourcetest.FailAfter(count(k), k, err) }

// collect runs one pass and returns its samples and the error it ended
// with. It fails the test when a pass yields anything after an error.
func collect[T any](t *testing.T, ctx context.Context, r source.Reader[T]) ([]T, error) {
	t.Helper()
	return fixture.Pass(t, ctx, r)
}

// seq returns from, from+1, ..., to-1.
func seq(from, to int) []int { return lo.RangeFrom(from, to-from) }

func sorted(s []int) []int {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
