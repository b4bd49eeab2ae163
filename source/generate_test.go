package source_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// draw is a Generate callback that records the index with a random number.
func draw(r *rand.Rand, i int) [2]uint64 { return [2]uint64{uint64(i), r.Uint64()} }

func TestGenerateIsRepeatableAndEpochsDiffer(t *testing.T) {
	a := source.Generate(100, 42, draw)
	b := source.Generate(100, 42, draw)
	ctx := context.Background()
	a0, _ := source.Collect(ctx, a)
	a1, _ := source.Collect(ctx, a)
	b0, _ := source.Collect(ctx, b)
	b1, _ := source.Collect(ctx, b)
	if len(a0) != 100 || len(a1) != 100 {
		t.Fatalf("passes of %d and %d samples, want 100", len(a0), len(a1))
	}
	for i, s := range a0 {
		if s[0] != uint64(i) {
			t.Fatalf("sample %d got index %d", i, s[0])
		}
	}
	if !slices.Equal(a0, b0) || !slices.Equal(a1, b1) {
		t.Fatal("two readers with the same seed differ in the same epoch")
	}
	if slices.Equal(a0, a1) {
		t.Fatal("epochs 0 and 1 are the same")
	}
	c0, _ := source.Collect(ctx, source.Generate(100, 43, draw))
	if slices.Equal(a0, c0) {
		t.Fatal("seeds 42 and 43 give the same samples")
	}
	// The epoch from the context replays a pass exactly.
	again, _ := source.Collect(source.WithEpoch(ctx, 1), source.Generate(100, 42, draw))
	if !slices.Equal(again, a1) {
		t.Fatal("WithEpoch(ctx, 1) does not replay epoch 1")
	}
}

func TestGenerateEndlessStopsOnBreakAndCancel(t *testing.T) {
	r := source.Generate(-1, 1, draw)
	sourcetest.BreakAfter(t, r, 5000)
	sourcetest.CancelAfter(t, r, 100)
}

func TestGenerateZero(t *testing.T) {
	if n, err := source.Count(context.Background(), source.Generate(0, 1, draw)); n != 0 || err != nil {
		t.Fatalf("Count = %d, %v; want 0, nil", n, err)
	}
}

func TestUniform(t *testing.T) {
	const dim, lo, hi = 8, -1, 3
	r := source.Uniform(dim, lo, hi, 7)
	take := func(ctx context.Context) [][]float32 {
		var out [][]float32
		for v, err := range r.All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
			if len(out) == 200 {
				break
			}
		}
		return out
	}
	first := take(context.Background())
	var sum float64
	for _, v := range first {
		if len(v) != dim {
			t.Fatalf("vector of length %d, want %d", len(v), dim)
		}
		for _, x := range v {
			if x < lo || x >= hi {
				t.Fatalf("element %v outside [%v, %v)", x, lo, hi)
			}
			sum += float64(x)
		}
	}
	if mean := sum / (200 * dim); mean < 0.8 || mean > 1.2 {
		t.Fatalf("mean %v, want about 1", mean)
	}
	first[0][0] = 99 // the consumer owns each vector
	if first[1][0] == 99 {
		t.Fatal("vectors share memory")
	}
	second := take(context.Background())
	if slices.Equal(second[0], first[0]) {
		t.Fatal("epoch 1 repeats epoch 0")
	}
	replay := take(source.WithEpoch(context.Background(), 1))
	for i := range replay {
		if !slices.Equal(replay[i], second[i]) {
			t.Fatal("WithEpoch(ctx, 1) does not replay epoch 1")
		}
	}
}

func TestConstant(t *testing.T) {
	got, err := source.Collect(context.Background(), source.Constant(true, 3))
	if err != nil || !slices.Equal(got, []bool{true, true, true}) {
		t.Fatalf("Collect = %v, %v", got, err)
	}
	n := 0
	for v, err := range source.Constant(1.5, -1).All(context.Background()) {
		if err != nil || v != 1.5 {
			t.Fatalf("endless constant yielded %v, %v", v, err)
		}
		if n++; n == 1000 {
			break
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errs := fixture.Drain(ctx, source.Constant(0, -1))
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors = %v, want one context.Canceled", errs)
	}
}
