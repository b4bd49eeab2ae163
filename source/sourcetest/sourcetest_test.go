package sourcetest_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func reader(f func(ctx context.Context, yield func(int, error) bool)) source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) { f(ctx, yield) }
	})
}

func TestTestReaderPassesGoodReaders(t *testing.T) {
	for name, r := range map[string]source.Reader[int]{
		"slice": source.Slice([]int{1, 2, 3, 4, 5}),
		"empty": source.Slice([]int{}),
		"fails": sourcetest.FailAfter(source.Slice([]int{1, 2, 3}), 2, errors.New("bad")),
	} {
		if err := sourcetest.TestReader(r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Each broken reader breaks one rule; TestReader must see it.
func TestTestReaderCatchesBrokenReaders(t *testing.T) {
	bad := errors.New("bad")
	block := make(chan struct{})
	defer close(block)
	cases := map[string]source.Reader[int]{
		"ignores cancel": reader(func(_ context.Context, yield func(int, error) bool) {
			for i := range 100_000 {
				if !yield(i, nil) {
					return
				}
			}
		}),
		"error twice": reader(func(_ context.Context, yield func(int, error) bool) {
			if yield(1, nil) && yield(0, bad) {
				yield(0, bad)
			}
		}),
		"sample after error": reader(func(_ context.Context, yield func(int, error) bool) {
			if yield(0, bad) {
				yield(1, nil)
			}
		}),
		"error with a sample": reader(func(_ context.Context, yield func(int, error) bool) {
			yield(7, bad)
		}),
		"leaks a goroutine": reader(func(ctx context.Context, yield func(int, error) bool) {
			go func() { <-block }()
			for i := range 3 {
				if err := ctx.Err(); err != nil {
					yield(0, err)
					return
				}
				if !yield(i, nil) {
					return
				}
			}
		}),
		"nondeterministic": func() source.Reader[int] {
			n := 0
			return reader(func(ctx context.Context, yield func(int, error) bool) {
				n++
				for i := range 3 {
					if err := ctx.Err(); err != nil {
						yield(0, err)
						return
					}
					if !yield(i*n, nil) {
						return
					}
				}
			})
		}(),
	}
	for name, r := range cases {
		if got := sourcetest.TestReader(r); got == nil {
			t.Errorf("%s: TestReader passed a broken reader", name)
		} else {
			t.Logf("%s: %s", name, got)
		}
	}
}

func TestFailAfter(t *testing.T) {
	bad := errors.New("bad")
	got, err := source.Collect(context.Background(), sourcetest.FailAfter(source.Slice([]int{1, 2, 3}), 2, bad))
	if fmt.Sprint(got) != "[1 2]" || err != bad {
		t.Fatalf("got %v, %v; want [1 2], bad", got, err)
	}
}

// forgetful resumes from the start whatever the state says.
type forgetful struct{ source.Reader[int] }

func (f forgetful) StateAt(_ int, n int64) (source.State, error) {
	return source.State{Kind: "forgetful", Pos: []int64{n}}, nil
}

func (f forgetful) Resume(source.State) (source.Reader[int], error) { return f, nil }

func TestTestReaderCatchesAResumeThatForgets(t *testing.T) {
	err := sourcetest.TestReader[int](forgetful{source.Slice([]int{1, 2, 3, 4})})
	if err == nil || !strings.Contains(err.Error(), "resume after") {
		t.Fatalf("TestReader = %v, want a resume failure", err)
	}
}
