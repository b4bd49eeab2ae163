package sink_test

import (
	"context"
	"iter"
	"slices"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

func TestRecycleAssemble(t *testing.T) {
	s := newSink(4)
	all := recs(10)
	a, err := s.Assemble(batch.Batch[rec]{Samples: all[:4]})
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
	b, err := s.Assemble(batch.Batch[rec]{Samples: all[4:8]})
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("Assemble did not take the recycled tensors")
	}
	// Not recycled: the next batch gets new memory and b stays intact.
	c, err := s.Assemble(batch.Batch[rec]{Samples: all[6:], Padded: 2})
	if err != nil {
		t.Fatal(err)
	}
	if c == b || !same(b, want(all[4:8], 0)) || !same(c, want(all[6:], 2)) {
		t.Errorf("got %+v and %+v", b, c)
	}
	// A short batch in recycled memory, then a full one: shapes follow
	// the batch and the one-hot rows hold a single 1.
	b.Release()
	d, err := s.Assemble(batch.Batch[rec]{Samples: all[9:]})
	if err != nil {
		t.Fatal(err)
	}
	if d != b || !same(d, want(all[9:], 0)) {
		t.Errorf("short batch in recycled memory: %+v", d)
	}
	d.Release()
	e, err := s.Assemble(batch.Batch[rec]{Samples: all[1:5]})
	if err != nil {
		t.Fatal(err)
	}
	if !same(e, want(all[1:5], 0)) {
		t.Errorf("full batch after a short one: %+v", e)
	}
}

// A short batch made while no full batch was released has the memory of a
// full one, so its Release hands back memory that a full batch fits: a
// pass that ends short allocates nothing the next time.
func TestRecycleShortBatchIsKept(t *testing.T) {
	s := newSink(4)
	short, err := s.Assemble(batch.Batch[rec]{Samples: recs(2)})
	if err != nil {
		t.Fatal(err)
	}
	short.Release()
	full, err := s.Assemble(batch.Batch[rec]{Samples: recs(4)})
	if err != nil {
		t.Fatal(err)
	}
	if full != short || !same(full, want(recs(4), 0)) {
		t.Errorf("full batch after a released short one: %+v", full)
	}
}

// TestReleaseRules checks what a Release that hands nothing back does:
// nothing, and the memory of the batch is not handed out twice.
func TestReleaseRules(t *testing.T) {
	s := newSink(4)
	ts, err := s.Assemble(batch.Batch[rec]{Samples: recs(4)})
	if err != nil {
		t.Fatal(err)
	}
	ts.Split(2)[0].Release()    // a view: nothing to hand back
	(&tensor.Batch{}).Release() // made by hand
	ts.Release()
	ts.Release() // twice: the second does nothing
	a, _ := s.Assemble(batch.Batch[rec]{Samples: recs(4)})
	b, _ := s.Assemble(batch.Batch[rec]{Samples: recs(4)})
	if a != ts || b == a || &b.Data[0].F32[0] == &a.Data[0].F32[0] {
		t.Fatal("a batch released twice was handed out twice")
	}
}

func TestReleaseOfACopyPanics(t *testing.T) {
	ts, err := newSink(4).Assemble(batch.Batch[rec]{Samples: recs(4)})
	if err != nil {
		t.Fatal(err)
	}
	cp := *ts // keeps the owner: releasing it would hand out memory ts still shows
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	cp.Release()
}

// TestRecycleUnderPrefetch assembles in Buffered's goroutine while the
// consumer holds earlier batches: every batch must arrive intact, and the
// consumer may scribble on it before recycling it. Two passes at once share
// the sink's free list.
func TestRecycleUnderPrefetch(t *testing.T) {
	rs := recs(400)
	s := newSink(4)
	r := stage.Buffered(pipeline.TensorizeBatches(pipeline.From(batch.Of(source.Slice(rs), 4, batch.Keep, batch.Recycling())), s), 2)
	var mu sync.Mutex
	seen := map[*tensor.Batch]bool{}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 3 {
				i := 0
				for ts, err := range r.All(context.Background()) {
					if err != nil {
						t.Error(err)
						return
					}
					if !same(ts, want(rs[4*i:4*i+4], 0)) {
						t.Errorf("batch %d overwritten while the consumer held it", i)
						return
					}
					mu.Lock()
					seen[ts] = true
					mu.Unlock()
					for j := range ts.Label[1].F32 {
						ts.Label[1].F32[j] = 7 // the consumer owns ts until Release
					}
					ts.Release()
					i++
				}
				if i != 100 {
					t.Errorf("%d batches, want 100", i)
				}
			}
		})
	}
	wg.Wait()
	// Per pass: the consumer's batch, 2*2+1 read ahead by Buffered and one
	// being assembled.
	if len(seen) > 2*(2*2+3) {
		t.Errorf("%d tensors in use for 2 concurrent passes", len(seen))
	}
}

// TestRecycleAllocs checks that recycling through Buffered allocates
// nothing per batch: with batches that exist already, and with the whole
// chain from samples (batch.Recycling, which Tensorize hands back).
func TestRecycleAllocs(t *testing.T) {
	const batches = 2000
	rs := recs(4 * batches)
	ready := make([]batch.Batch[rec], batches)
	for i := range ready {
		ready[i] = batch.Batch[rec]{Samples: rs[4*i : 4*i+4]}
	}
	for _, tt := range []struct {
		name    string
		batches source.Reader[batch.Batch[rec]]
	}{
		{"batches", source.Slice(ready)},
		{"samples", batch.Of(source.Slice(rs), 4, batch.Keep, batch.Recycling())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink(4)
			r := stage.Buffered(pipeline.TensorizeBatches(pipeline.From(tt.batches), s), 2)
			ctx := context.Background()
			pass := func() {
				for ts := range r.All(ctx) {
					ts.Release()
				}
			}
			pass() // fills the free lists
			allocs := testing.AllocsPerRun(5, pass)
			// A pass allocates its iterators and Buffered's goroutine; one
			// allocation per batch would be 2000.
			if perBatch := allocs / batches; perBatch > 0.05 {
				t.Errorf("%v allocations per pass: %.3f per batch, want 0", allocs, perBatch)
			}
		})
	}
}

// TestTensorizeRecyclesBatches checks that Tensorize hands every batch back
// after assembling it, so a recycling batch.Of uses one Samples slice.
func TestTensorizeRecyclesBatches(t *testing.T) {
	rs := recs(20)
	b := batch.Of(source.Slice(rs), 4, batch.Keep, batch.Recycling())
	arrays := map[*rec]bool{}
	watched := source.Func[batch.Batch[rec]](func(ctx context.Context) iter.Seq2[batch.Batch[rec], error] {
		return func(yield func(batch.Batch[rec], error) bool) {
			for bt, err := range b.All(ctx) {
				if err == nil {
					arrays[&bt.Samples[0]] = true
				}
				if !yield(bt, err) {
					return
				}
			}
		}
	})
	i := 0
	s := newSink(4)
	for ts, err := range pipeline.TensorizeBatches(pipeline.From(watched), s).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if !same(ts, want(rs[4*i:4*i+4], 0)) {
			t.Errorf("batch %d: %+v", i, ts)
		}
		ts.Release()
		i++
	}
	if len(arrays) != 1 {
		t.Errorf("%d Samples slices for 5 batches, want 1", len(arrays))
	}
}

// TestWritesAll checks that a marked field's rows are not cleared in reused
// memory (a fill that skips elements then sees an earlier batch), that new
// memory is still zero, and that unmarked one-hot fields stay correct.
func TestWritesAll(t *testing.T) {
	firstOnly := func(v int, dst []float32) { dst[0] = float32(v) } // breaks the promise on purpose
	oneHot := func(v int, dst []float32) { dst[v%3] = 1 }
	mk := func() *sink.Sink[int] {
		return sink.New(2, []sink.Field[int]{
			sink.Float32("marked", []int{2}, func(v int, dst []float32) { dst[0], dst[1] = float32(v), -float32(v) }).WritesAll(),
			sink.Float32("liar", []int{2}, firstOnly).WritesAll(),
			sink.Float32("onehot", []int{3}, oneHot),
		}, nil)
	}
	check := func(t *testing.T, ts *tensor.Batch, marked, liar, onehot []float32) {
		t.Helper()
		for i, w := range [][]float32{marked, liar, onehot} {
			if got := ts.Data[i].F32; !slices.Equal(got, w) {
				t.Errorf("%s: got %v, want %v", ts.Data[i].Name, got, w)
			}
		}
	}
	t.Run("recycle", func(t *testing.T) {
		s := mk()
		a, err := s.Assemble(batch.Batch[int]{Samples: []int{1, 2}})
		if err != nil {
			t.Fatal(err)
		}
		check(t, a, []float32{1, -1, 2, -2}, []float32{1, 0, 2, 0}, []float32{0, 1, 0, 0, 0, 1})
		a.Data[1].F32[1] = 9 // stale values in the elements the liar skips
		a.Release()
		b, err := s.Assemble(batch.Batch[int]{Samples: []int{3, 4}})
		if err != nil {
			t.Fatal(err)
		}
		check(t, b, []float32{3, -3, 4, -4}, []float32{3, 9, 4, 0}, []float32{1, 0, 0, 0, 1, 0})
	})
	t.Run("new memory", func(t *testing.T) {
		s := mk()
		for _, v := range []int{5, 6} {
			ts, err := s.Assemble(batch.Batch[int]{Samples: []int{v}})
			if err != nil {
				t.Fatal(err)
			}
			check(t, ts, []float32{float32(v), -float32(v)}, []float32{float32(v), 0}, oneHotRow(v))
		}
	})
}

func oneHotRow(v int) []float32 {
	r := make([]float32, 3)
	r[v%3] = 1
	return r
}
