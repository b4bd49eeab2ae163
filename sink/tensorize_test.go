package sink_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

func TestTensorize(t *testing.T) {
	rs := recs(10)
	for _, mode := range []string{"fresh", "recycle"} {
		t.Run(mode, func(t *testing.T) {
			s := newSink(4)
			r := pipeline.Tensorize(pipeline.From(source.Slice(rs)), s, batch.Pad)
			wants := []*tensor.Batch{
				want(rs[0:4], 0),
				want(rs[4:8], 0),
				want([]rec{rs[8], rs[9], rs[0], rs[1]}, 2),
			}
			for pass := range 2 {
				i := 0
				for ts, err := range r.All(context.Background()) {
					if err != nil {
						t.Fatal(err)
					}
					if i >= len(wants) || !same(ts, wants[i]) {
						t.Fatalf("pass %d batch %d: got %+v", pass, i, ts)
					}
					if mode == "recycle" {
						ts.Release()
					}
					i++
				}
				if i != len(wants) {
					t.Errorf("pass %d: %d batches, want %d", pass, i, len(wants))
				}
			}
		})
	}
}

func TestTensorizeOwnership(t *testing.T) {
	rs := recs(8)
	s := newSink(4)
	r := pipeline.TensorizeBatches(pipeline.From(batch.Of(source.Slice(rs), 4, batch.Keep)), s)
	fresh, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 2 || !same(fresh[0], want(rs[:4], 0)) || !same(fresh[1], want(rs[4:], 0)) {
		t.Error("kept batches must stay intact")
	}
	// Recycled tensors come back in a later pass, and only then.
	fresh[0].Release()
	again, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if again[0] != fresh[0] || again[1] == fresh[1] {
		t.Error("a pass must take recycled tensors and only those")
	}
	if !same(fresh[1], want(rs[4:], 0)) {
		t.Error("a batch the consumer kept changed")
	}
}

func TestTensorizeErrors(t *testing.T) {
	boom := errors.New("boom")
	up := source.Func[batch.Batch[rec]](func(ctx context.Context) iter.Seq2[batch.Batch[rec], error] {
		return func(yield func(batch.Batch[rec], error) bool) {
			if yield(batch.Batch[rec]{Samples: recs(2)}, nil) {
				yield(batch.Batch[rec]{}, boom)
			}
		}
	})
	tooBig := batch.Of(source.Slice(recs(9)), 3, batch.Keep)
	for _, tt := range []struct {
		name string
		r    source.Reader[batch.Batch[rec]]
		size int
		is   error
		msg  string
	}{
		{"upstream", up, 4, boom, "boom"},
		{"too large", tooBig, 2, sink.ErrBatch, "batch 0 of the pass"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var oks, errs int
			for ts, err := range pipeline.TensorizeBatches(pipeline.From(tt.r), newSink(tt.size)).All(context.Background()) {
				if err != nil {
					errs++
					if ts != nil || !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.msg) {
						t.Errorf("got %v, %v; want nil and %v with %q", ts, err, tt.is, tt.msg)
					}
					continue
				}
				oks++
			}
			if errs != 1 {
				t.Errorf("%d errors, want 1", errs)
			}
		})
	}
}

func TestTensorizeEarlyBreakAndCancel(t *testing.T) {
	r := pipeline.TensorizeBatches(pipeline.From(batch.Of(source.Slice(recs(2000)), 2, batch.Keep)), newSink(2))
	n := 0
	for range r.All(context.Background()) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("%d batches before break", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	n = 0
	for _, err := range r.All(ctx) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 2 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) || n >= 1000 {
		t.Errorf("%d batches, error %v; want few and context.Canceled", n, last)
	}
}

func TestTensorizeConcurrentPassesWithRecycle(t *testing.T) {
	rs := recs(40)
	s := newSink(4)
	r := pipeline.TensorizeBatches(pipeline.From(batch.Of(source.Slice(rs), 4, batch.Keep)), s)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			i := 0
			for ts, err := range r.All(context.Background()) {
				if err != nil {
					t.Error(err)
					return
				}
				if !same(ts, want(rs[4*i:4*i+4], 0)) {
					t.Errorf("batch %d overwritten by another pass", i)
				}
				ts.Release()
				i++
			}
		})
	}
	wg.Wait()
}
