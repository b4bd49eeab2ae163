package batch_test

import (
	"context"
	"iter"
	"reflect"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// arrayOf identifies the backing array of a non-empty batch.
func arrayOf[T any](b batch.Batch[T]) *T { return &b.Samples[:1][0] }

// collectRecycling runs one pass of r, copies every batch and recycles it,
// and returns the copies and the number of distinct backing arrays seen.
func collectRecycling(t *testing.T, r source.Reader[batch.Batch[int]]) ([]got, int) {
	t.Helper()
	out := []got{}
	arrays := map[*int]bool{}
	for b, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		arrays[arrayOf(b)] = true
		out = append(out, got{slices.Clone(b.Samples), b.Padded})
		b.Release()
	}
	return out, len(arrays)
}

// TestRecyclingSameBatches checks that recycling changes no batch, for every
// policy and over several passes (RollOver carries between them), and that
// a consumer that recycles at once makes the reader use a single slice.
func TestRecyclingSameBatches(t *testing.T) {
	for _, tt := range []struct {
		name string
		mk   func(opts ...batch.Option) source.Reader[batch.Batch[int]]
	}{
		{"keep", func(o ...batch.Option) source.Reader[batch.Batch[int]] {
			return batch.Of(source.Slice(ints(10)), 3, batch.Keep, o...)
		}},
		{"drop", func(o ...batch.Option) source.Reader[batch.Batch[int]] {
			return batch.Of(source.Slice(ints(10)), 3, batch.Drop, o...)
		}},
		{"pad", func(o ...batch.Option) source.Reader[batch.Batch[int]] {
			return batch.Of(source.Slice(ints(10)), 4, batch.Pad, o...)
		}},
		{"pad short pass", func(o ...batch.Option) source.Reader[batch.Batch[int]] {
			return batch.Of(source.Slice(ints(2)), 5, batch.Pad, o...)
		}},
		{"rollover", func(o ...batch.Option) source.Reader[batch.Batch[int]] {
			return batch.Of(source.Slice(ints(10)), 4, batch.RollOver, o...)
		}},
		{"fill", func(o ...batch.Option) source.Reader[batch.Batch[int]] {
			return batch.OfFill(source.Slice(ints(10)), 4, -1, o...)
		}},
		{"whole pass", func(o ...batch.Option) source.Reader[batch.Batch[int]] {
			return batch.Of(source.Slice(ints(10)), 0, batch.Keep, o...)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plain, rec := tt.mk(), tt.mk(batch.Recycling())
			for pass := range 3 {
				want := collect(t, plain)
				g, arrays := collectRecycling(t, rec)
				if !reflect.DeepEqual(g, want) {
					t.Fatalf("pass %d: got %v, want %v", pass, g, want)
				}
				if len(g) > 0 && arrays != 1 {
					t.Errorf("pass %d: %d backing arrays, want 1", pass, arrays)
				}
			}
		})
	}
}

// TestRecyclingOwnership checks who owns a batch: without Release every
// batch keeps its own slice; after Release the next batch takes the slice;
// recycling twice panics.
func TestRecyclingOwnership(t *testing.T) {
	r := batch.Of(source.Slice(ints(9)), 3, batch.Keep, batch.Recycling())
	kept, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}
	for i, b := range kept {
		if !reflect.DeepEqual(b.Samples, want[i]) {
			t.Fatalf("batch %d not recycled: %v, want %v", i, b.Samples, want[i])
		}
	}
	kept[0].Release()
	// The next pass fills kept[0]'s slice first.
	next, stop := iter.Pull2(r.All(context.Background()))
	defer stop()
	b, _, _ := next()
	if arrayOf(b) != arrayOf(kept[0]) || !reflect.DeepEqual(kept[0].Samples, []int{0, 1, 2}) {
		t.Errorf("next batch does not reuse the recycled slice")
	}
	kept[1].Release()
	b2, _, _ := next()
	if arrayOf(b2) != arrayOf(kept[1]) {
		t.Errorf("second batch does not reuse the second recycled slice")
	}
	if !reflect.DeepEqual(b.Samples, []int{0, 1, 2}) || !reflect.DeepEqual(b2.Samples, []int{3, 4, 5}) {
		t.Errorf("reused batches hold %v %v", b.Samples, b2.Samples)
	}

	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	b.Release()
	mustPanic("released twice", b.Release)
	// kept[0] shares b's slot, which b already recycled.
	mustPanic("stale copy", kept[0].Release)
	// Batches that are not from a recycling reader: nothing happens.
	batch.Batch[int]{}.Release()
	batch.Batch[int]{Samples: []int{1}}.Release()
}

// TestRecyclingEarlyStop checks that a pass that stops early hands the
// unfinished batch's slice back, and that the reader still works.
func TestRecyclingEarlyStop(t *testing.T) {
	r := batch.Of(source.Slice(ints(10)), 4, batch.Keep, batch.Recycling())
	for b := range r.All(context.Background()) {
		b.Release()
		break
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range r.All(ctx) {
	}
	g, arrays := collectRecycling(t, r)
	if want := []got{{[]int{0, 1, 2, 3}, 0}, {[]int{4, 5, 6, 7}, 0}, {[]int{8, 9}, 0}}; !reflect.DeepEqual(g, want) {
		t.Errorf("got %v, want %v", g, want)
	}
	if arrays != 1 {
		t.Errorf("%d backing arrays, want 1", arrays)
	}
}

// TestRecyclingUnderPrefetch hands batches across goroutines: Buffered
// holds several at once, the consumer writes into each batch and then
// recycles it. The race detector checks the hand-over; the values check
// that no batch was overwritten while the consumer held it.
func TestRecyclingUnderPrefetch(t *testing.T) {
	const n, size = 5000, 16
	r := stage.Buffered(batch.Of(source.Slice(ints(n)), size, batch.Keep, batch.Recycling()), 2)
	arrays := map[*int]bool{}
	for pass := range 3 {
		next := 0
		for b, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			arrays[arrayOf(b)] = true
			for i, v := range b.Samples {
				if v != next {
					t.Fatalf("pass %d: sample %d is %d, want %d", pass, i, v, next)
				}
				next++
				b.Samples[i] = -1 // the consumer owns the batch until Recycle
			}
			b.Release()
		}
		if next != n {
			t.Fatalf("pass %d: %d samples, want %d", pass, next, n)
		}
	}
	// Buffered(2) reads at most 2*2+1 batches ahead of the one the
	// consumer holds, and the batching pass holds one more.
	if len(arrays) > 2*2+3 {
		t.Errorf("%d backing arrays for %d batches per pass", len(arrays), n/size)
	}
}

// TestRecyclingAllocs checks that a recycling reader allocates nothing per
// batch, directly and through a prefetching stage.
func TestRecyclingAllocs(t *testing.T) {
	const batches, size = 2000, 4
	for _, tt := range []struct {
		name string
		r    source.Reader[batch.Batch[int]]
	}{
		{"direct", batch.Of(source.Slice(ints(batches*size)), size, batch.Keep, batch.Recycling())},
		{"buffered", stage.Buffered(batch.Of(source.Slice(ints(batches*size)), size, batch.Keep, batch.Recycling()), 2)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			allocs := testing.AllocsPerRun(5, func() {
				for b := range tt.r.All(ctx) {
					b.Release()
				}
			})
			// A pass allocates its iterator's closures (and, buffered, its
			// goroutine); one allocation per batch would be 2000.
			if perBatch := allocs / batches; perBatch > 0.05 {
				t.Errorf("%v allocations per pass: %.3f per batch, want 0", allocs, perBatch)
			}
		})
	}
}

// TestPadSeqsStreamRecycles checks that pipeline.PadSeqs hands every batch
// back once it has copied it.
func TestPadSeqsStreamRecycles(t *testing.T) {
	seqs := [][]int32{{1}, {2, 2}, {3, 3, 3}, {4}, {5, 5}}
	b := batch.Of(source.Slice(seqs), 2, batch.Keep, batch.Recycling())
	arrays := map[*[]int32]bool{}
	watched := source.Func[batch.Batch[[]int32]](func(ctx context.Context) iter.Seq2[batch.Batch[[]int32], error] {
		return func(yield func(batch.Batch[[]int32], error) bool) {
			for bt, err := range b.All(ctx) {
				if err == nil {
					arrays[arrayOf(bt)] = true
				}
				if !yield(bt, err) {
					return
				}
			}
		}
	})
	out, err := source.Collect(context.Background(), padSeqs(watched, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || !reflect.DeepEqual(out[1].Data, []int32{3, 3, 3, 4, 0, 0}) {
		t.Errorf("got %+v", out)
	}
	if len(arrays) != 1 {
		t.Errorf("%d backing arrays, want 1", len(arrays))
	}
}
