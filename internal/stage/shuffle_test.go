package stage_test

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func passAt[T any](t *testing.T, r source.Reader[T], epoch int) []T {
	t.Helper()
	out, err := source.Collect(source.WithEpoch(context.Background(), epoch), r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// isPermutation reports whether got holds exactly the ints 0..n-1.
func isPermutation(got []int, n int) bool {
	s := slices.Sorted(slices.Values(got))
	return slices.Equal(s, lo.Range(n))
}

func TestShufflePermutation(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		for _, buffer := range []int{1, 2, 7, 100, 5000} {
			r := stage.Shuffle(source.Slice(lo.Range(n)), buffer, 42)
			for epoch := range 3 {
				if got := passAt(t, r, epoch); !isPermutation(got, n) {
					t.Errorf("n %d buffer %d epoch %d: not a permutation: %v", n, buffer, epoch, got)
				}
			}
		}
	}
}

func TestShuffleBufferOneKeepsOrder(t *testing.T) {
	if got := values(t, stage.Shuffle(source.Slice(lo.Range(50)), 1, 9)); !slices.Equal(got, lo.Range(50)) {
		t.Errorf("got %v", got)
	}
}

func TestShuffleDeterministic(t *testing.T) {
	in := lo.Range(200)
	a := stage.Shuffle(source.Slice(in), 64, 7)
	b := stage.Shuffle(source.Slice(in), 64, 7)
	// The same seed and epoch give the same order, through the context...
	for epoch := range 3 {
		if x, y := passAt(t, a, epoch), passAt(t, b, epoch); !slices.Equal(x, y) {
			t.Errorf("epoch %d: two shuffles with the same seed differ", epoch)
		}
	}
	// ...and through each stage's own pass count.
	a = stage.Shuffle(source.Slice(in), 64, 7)
	b = stage.Shuffle(source.Slice(in), 64, 7)
	for pass := range 3 {
		x, y := values(t, a), values(t, b)
		if !slices.Equal(x, y) {
			t.Errorf("pass %d: two shuffles with the same seed differ", pass)
		}
		if want := passAt(t, stage.Shuffle(source.Slice(in), 64, 7), pass); !slices.Equal(x, want) {
			t.Errorf("pass %d does not match epoch %d", pass, pass)
		}
	}
}

func TestShuffleEpochsAndSeedsDiffer(t *testing.T) {
	in := lo.Range(200)
	r := stage.Shuffle(source.Slice(in), 200, 7)
	e0, e1 := passAt(t, r, 0), passAt(t, r, 1)
	if slices.Equal(e0, e1) {
		t.Error("epochs 0 and 1 have the same order")
	}
	if slices.Equal(e0, in) {
		t.Error("epoch 0 is not shuffled")
	}
	// Without an epoch in the context, consecutive passes differ too.
	if slices.Equal(values(t, r), values(t, r)) {
		t.Error("consecutive passes have the same order")
	}
	other := passAt(t, stage.Shuffle(source.Slice(in), 200, 8), 0)
	if slices.Equal(e0, other) {
		t.Error("seeds 7 and 8 give the same order")
	}
}

// TestShuffleWindow: a sample enters the buffer when it is read, so it
// cannot come out more than buffer places before its input position.
func TestShuffleWindow(t *testing.T) {
	const n, buffer = 1000, 10
	got := values(t, stage.Shuffle(source.Slice(lo.Range(n)), buffer, 1))
	moved := 0
	for pos, v := range got {
		if pos < v-buffer {
			t.Fatalf("sample %d came out at %d, more than %d early", v, pos, buffer)
		}
		if pos > v+buffer {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no sample moved further than the buffer: the buffer does not slide")
	}
	// Each output is drawn from the whole buffer, so a sample follows its
	// input neighbour only about once in buffer times.
	inOrder := 0
	for pos := 1; pos < n; pos++ {
		if got[pos] == got[pos-1]+1 {
			inOrder++
		}
	}
	if inOrder > n/4 {
		t.Errorf("%d of %d samples follow their input neighbour: not mixed", inOrder, n)
	}
}

// TestShuffleUniform: with a buffer as large as the pass, every sample is
// equally likely to come first.
func TestShuffleUniform(t *testing.T) {
	const n, epochs = 4, 4000
	r := stage.Shuffle(source.Slice(lo.Range(n)), n, 3)
	var first [n]int
	for e := range epochs {
		first[passAt(t, r, e)[0]]++
	}
	for v, c := range first {
		// Expect 1000 each; the standard deviation is about 27.
		if c < 880 || c > 1120 {
			t.Errorf("sample %d came first %d times in %d epochs, want about %d", v, c, epochs, epochs/n)
		}
	}
}

// TestShuffleCancelWhileDraining: the samples left in the buffer after
// upstream ends are yielded from memory, and cancelling stops them too.
func TestShuffleCancelWhileDraining(t *testing.T) {
	checkCancelStops(t, stage.Shuffle(source.Slice(lo.Range(5000)), 5000, 1), 5000)
}

func TestShuffleNegativeBufferPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	stage.Shuffle(source.Slice([]int{1}), -1, 1)
}

// TestShuffleZeroIsPaddleNoShuffling checks that a buffer of 0 turns
// shuffling off, as PaddlePaddle's shuffle decorator with buf_size 0
// yields every sample as it comes: the order is unchanged and nothing is
// read ahead.
func TestShuffleZeroIsPaddleNoShuffling(t *testing.T) {
	checkNoReadAhead(t, func(r source.Reader[int]) source.Reader[int] { return stage.Shuffle(r, 0, 7) })
}

func TestShuffleKeepsItsBufferBetweenPasses(t *testing.T) {
	in := make([][64]byte, 4096) // a 256 KiB buffer
	r := stage.Shuffle(source.Slice(in), len(in), 1)
	ctx := context.Background()
	if _, err := source.Count(ctx, r); err != nil { // the first pass allocates the buffer
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := source.Count(ctx, r); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
		t.Fatalf("a later pass allocated %d bytes; the buffer should be reused", n)
	}
}
