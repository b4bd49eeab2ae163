package stage_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestRepeat(t *testing.T) {
	in := []int{1, 2, 3}
	tests := []struct {
		n    int
		want []int
	}{
		{0, nil},
		{1, in},
		{3, []int{1, 2, 3, 1, 2, 3, 1, 2, 3}},
	}
	for _, tc := range tests {
		if got := values(t, stage.Repeat(source.Slice(in), tc.n)); !slices.Equal(got, tc.want) {
			t.Errorf("Repeat(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	endless := values(t, stage.Take(stage.Repeat(source.Slice(in), -1), 7))
	if want := []int{1, 2, 3, 1, 2, 3, 1}; !slices.Equal(endless, want) {
		t.Errorf("Repeat(-1) then Take(7) = %v, want %v", endless, want)
	}
}

func TestRepeatEpochs(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		take  int
		ctx   func() context.Context
		want1 []int // epochs of the inner passes of the first outer pass
		want2 []int // ... of the second
	}{
		{"counted", 3, 100, context.Background, []int{0, 1, 2}, []int{3, 4, 5}},
		{"from context", 3, 100, func() context.Context { return source.WithEpoch(context.Background(), 2) },
			[]int{6, 7, 8}, []int{6, 7, 8}},
		{"endless", -1, 5, context.Background, []int{0, 1, 2, 3, 4}, []int{1 << 32, 1<<32 + 1, 1<<32 + 2, 1<<32 + 3, 1<<32 + 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newProbe(1)
			r := stage.Take(stage.Repeat(p, tc.n), tc.take)
			for _, want := range [][]int{tc.want1, tc.want2} {
				before := len(p.seenEpochs())
				if _, err := source.Collect(tc.ctx(), r); err != nil {
					t.Fatal(err)
				}
				if got := p.seenEpochs()[before:]; !slices.Equal(got, want) {
					t.Errorf("inner epochs %v, want %v", got, want)
				}
			}
		})
	}
}

// TestRepeatShuffle: each inner pass of a repeated shuffle has its own
// order, and the whole repeats for the same outer epoch.
func TestRepeatShuffle(t *testing.T) {
	r := stage.Repeat(stage.Shuffle(source.Slice(lo.Range(20)), 20, 1), 2)
	got := passAt(t, r, 0)
	if !isPermutation(got[:20], 20) || !isPermutation(got[20:], 20) {
		t.Fatalf("inner passes are not permutations: %v", got)
	}
	if slices.Equal(got[:20], got[20:]) {
		t.Error("both inner passes have the same order")
	}
	if again := passAt(t, r, 0); !slices.Equal(got, again) {
		t.Error("the same outer epoch gave a different order")
	}
	if next := passAt(t, r, 1); slices.Equal(got, next) {
		t.Error("outer epochs 0 and 1 gave the same order")
	}
}

func TestRepeatZeroStartsNothing(t *testing.T) {
	p := newProbe(3)
	values(t, stage.Repeat(p, 0))
	if p.started.Load() != 0 {
		t.Errorf("Repeat(0) started %d passes", p.started.Load())
	}
}

// TestRepeatEndlessEmpty: repeating an empty reader forever ends instead of
// spinning.
func TestRepeatEndlessEmpty(t *testing.T) {
	p := newProbe(0)
	if got := values(t, stage.Repeat(p, -1)); len(got) != 0 {
		t.Errorf("got %v", got)
	}
	if p.started.Load() != 1 {
		t.Errorf("started %d passes of the empty reader, want 1", p.started.Load())
	}
}

// TestRepeatCancelBetweenPasses: the context is checked between inner
// passes, even when the inner reader never looks at it.
func TestRepeatCancelBetweenPasses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quiet := source.Func[int](func(context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) { yield(1, nil) }
	})
	n := 0
	var errs []error
	for _, err := range stage.Repeat(quiet, -1).All(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n++; n == 3 {
			cancel()
		}
	}
	if n != 3 || len(errs) != 1 || errs[0] != context.Canceled {
		t.Errorf("got %d samples and errors %v; want 3 and context.Canceled", n, errs)
	}
}
