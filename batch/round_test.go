package batch_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
)

// TestRoundBatch checks MXNet's round_batch: the last batch of an epoch is
// completed with the first samples of the data, and the next epoch starts
// after them.
func TestRoundBatch(t *testing.T) {
	r := batch.Of(source.Slice(ints(10)), 4, batch.RoundBatch)
	want := [][]got{
		{{[]int{0, 1, 2, 3}, 0}, {[]int{4, 5, 6, 7}, 0}, {[]int{8, 9, 0, 1}, 2}},
		{{[]int{2, 3, 4, 5}, 0}, {[]int{6, 7, 8, 9}, 0}},
		{{[]int{0, 1, 2, 3}, 0}, {[]int{4, 5, 6, 7}, 0}, {[]int{8, 9, 0, 1}, 2}},
	}
	for e, w := range want {
		if g := collect(t, r); !reflect.DeepEqual(g, w) {
			t.Errorf("epoch %d: got %v, want %v", e, g, w)
		}
	}
}

// TestRoundBatchPadDiffers checks that Pad, unlike RoundBatch, restarts
// every epoch at the first sample.
func TestRoundBatchPadDiffers(t *testing.T) {
	r := batch.Of(source.Slice(ints(10)), 4, batch.Pad)
	collect(t, r)
	if g := collect(t, r); g[0].Samples[0] != 0 {
		t.Errorf("Pad epoch 2 starts at %d, want 0", g[0].Samples[0])
	}
}

func TestRoundBatchShortPass(t *testing.T) {
	// 3 samples, batches of 8: the padding wraps around the pass, and the
	// next pass starts after the last sample the padding used.
	r := batch.Of(source.Slice([]int{0, 1, 2}), 8, batch.RoundBatch)
	want := [][]got{
		{{[]int{0, 1, 2, 0, 1, 2, 0, 1}, 5}}, // next pass skips 5 mod 3 = 2
		{{[]int{2, 0, 1, 2, 0, 1, 2, 0}, 7}}, // next pass skips 7 mod 3 = 1
		{{[]int{1, 2, 0, 1, 2, 0, 1, 2}, 6}}, // next pass skips 0
		{{[]int{0, 1, 2, 0, 1, 2, 0, 1}, 5}},
	}
	for e, w := range want {
		if g := collect(t, r); !reflect.DeepEqual(g, w) {
			t.Errorf("pass %d: got %v, want %v", e, g, w)
		}
	}
}

func TestRoundBatchEarlyStopLeavesNoSkip(t *testing.T) {
	r := batch.Of(source.Slice(ints(5)), 2, batch.RoundBatch)
	collect(t, r) // [0 1] [2 3] [4 0]: skip 1
	for range r.All(context.Background()) {
		break // takes the skip, stops
	}
	want := []got{{[]int{0, 1}, 0}, {[]int{2, 3}, 0}, {[]int{4, 0}, 1}}
	if g := collect(t, r); !reflect.DeepEqual(g, want) {
		t.Errorf("after early stop: got %v, want %v", g, want)
	}
}

func TestRoundBatchRecycling(t *testing.T) {
	r := batch.Of(source.Slice(ints(5)), 2, batch.RoundBatch, batch.Recycling())
	for range 3 {
		for b, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Samples) != 2 {
				t.Fatalf("batch of %d", len(b.Samples))
			}
			b.Release()
		}
	}
}

func TestRoundBatchString(t *testing.T) {
	if batch.RoundBatch.String() != "roundbatch" {
		t.Errorf("String: %q", batch.RoundBatch.String())
	}
}

// TestRollOverPad checks the count MXNet's NDArrayIter reports as pad for
// roll_over: the carried samples of the first batch of the next epoch,
// which tensorfeed reports as Carried (Padded stays 0).
func TestRollOverPad(t *testing.T) {
	r := batch.Of(source.Slice(ints(10)), 4, batch.RollOver)
	type pc struct{ padded, carried int }
	want := [][]pc{
		{{0, 0}, {0, 0}},         // carry 8 9
		{{0, 2}, {0, 0}, {0, 0}}, // [8 9 0 1]: MXNet's pad 2
		{{0, 0}, {0, 0}},
	}
	for e, w := range want {
		bs, err := source.Collect(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		var g []pc
		for _, b := range bs {
			g = append(g, pc{b.Padded, b.Carried})
			if len(b.Real()) != len(b.Samples) {
				t.Errorf("epoch %d: Real %v of %v", e, b.Real(), b.Samples)
			}
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("epoch %d: got %v, want %v", e, g, w)
		}
	}
}

func TestRollOverCarriedOverManyBatches(t *testing.T) {
	// Passes of 3 with batches of 5 carry more than one pass's worth.
	r := batch.Of(source.Slice([]int{1, 2, 3}), 5, batch.RollOver)
	collect(t, r) // carry 3
	bs, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || bs[0].Carried != 3 {
		t.Fatalf("got %+v, want one batch with 3 carried", bs)
	}
}
