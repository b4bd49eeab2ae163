package stage_test

import (
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestTake(t *testing.T) {
	in := lo.Range(5)
	tests := []struct {
		n    int
		want []int
	}{
		{0, nil},
		{1, []int{0}},
		{3, []int{0, 1, 2}},
		{5, in},
		{8, in},
	}
	for _, tc := range tests {
		if got := values(t, stage.Take(source.Slice(in), tc.n)); !slices.Equal(got, tc.want) {
			t.Errorf("Take(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestTakeStopsEndless: Take ends an endless reader right after the n-th
// sample, without pulling one more.
func TestTakeStopsEndless(t *testing.T) {
	for _, n := range []int{1, 4, 300} {
		p := newProbe(-1)
		got := values(t, stage.Take(p, n))
		if !slices.Equal(got, lo.Range(n)) {
			t.Errorf("Take(%d) = %v", n, got)
		}
		if p.yielded.Load() != int64(n) || p.open() != 0 {
			t.Errorf("Take(%d): upstream yielded %d, %d passes open", n, p.yielded.Load(), p.open())
		}
	}
}

func TestTakeZeroStartsNothing(t *testing.T) {
	p := newProbe(3)
	if got := values(t, stage.Take(p, 0)); len(got) != 0 {
		t.Errorf("got %v", got)
	}
	if p.started.Load() != 0 {
		t.Errorf("Take(0) started %d upstream passes", p.started.Load())
	}
}

func TestSkip(t *testing.T) {
	in := lo.Range(5)
	tests := []struct {
		n    int
		want []int
	}{
		{0, in},
		{1, []int{1, 2, 3, 4}},
		{4, []int{4}},
		{5, nil},
		{9, nil},
	}
	for _, tc := range tests {
		if got := values(t, stage.Skip(source.Slice(in), tc.n)); !slices.Equal(got, tc.want) {
			t.Errorf("Skip(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestSkipTake: Skip then Take selects a window, on every pass.
func TestSkipTake(t *testing.T) {
	r := stage.Take(stage.Skip(source.Slice(lo.Range(100)), 10), 3)
	for range 2 {
		if got := values(t, r); !slices.Equal(got, []int{10, 11, 12}) {
			t.Errorf("got %v", got)
		}
	}
}

func TestSkipErrorWhileSkipping(t *testing.T) {
	p := newProbe(10)
	p.failAt = 2
	items := drain(t, t.Context(), stage.Skip(p, 5), 100)
	if len(items) != 1 || items[0].err == nil {
		t.Errorf("got %v, want only the upstream error", items)
	}
}

func TestTakeSkipNegativePanics(t *testing.T) {
	r := source.Slice([]int{1})
	for name, f := range map[string]func(){
		"Take": func() { stage.Take(r, -1) },
		"Skip": func() { stage.Skip(r, -1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}
