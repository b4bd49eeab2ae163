package stage_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestChain(t *testing.T) {
	s := source.Slice[int]
	tests := []struct {
		name string
		rs   []source.Reader[int]
		want []int
	}{
		{"none", nil, nil},
		{"one", []source.Reader[int]{s([]int{1, 2})}, []int{1, 2}},
		{"three", []source.Reader[int]{s([]int{1}), s([]int{2, 3}), s([]int{4})}, []int{1, 2, 3, 4}},
		{"empty in the middle", []source.Reader[int]{s([]int{1}), s(nil), s([]int{4})}, []int{1, 4}},
		{"same twice", []source.Reader[int]{s([]int{1, 2}), s([]int{1, 2})}, []int{1, 2, 1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := values(t, stage.Chain(tc.rs...)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestChainStopsAtError: the readers after a failing one are not started.
func TestChainStopsAtError(t *testing.T) {
	first, failing, last := newProbe(2), newProbe(5), newProbe(2)
	failing.failAt = 1
	items := drain(t, t.Context(), stage.Chain[int](first, failing, last), 100)
	if len(items) != 4 || !errors.Is(items[3].err, errBoom) {
		t.Fatalf("got %v, want 0, 1, 0 and errBoom", items)
	}
	if last.started.Load() != 0 {
		t.Error("reader after the error was started")
	}
}

// TestChainCopiesArguments: changing the caller's slice later does not
// change the chain.
func TestChainCopiesArguments(t *testing.T) {
	rs := []source.Reader[int]{source.Slice([]int{1}), source.Slice([]int{2})}
	r := stage.Chain(rs...)
	rs[0] = source.Slice([]int{9})
	if got := values(t, r); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("got %v", got)
	}
}

func TestChainNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	stage.Chain(source.Slice([]int{1}), nil)
}
