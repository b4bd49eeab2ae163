package sink_test

import (
	"context"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// TestPrefetchKeepsEveryBatch puts Buffered(4) after Tensorize and checks
// 100 batches of distinct content: a consumer that keeps every batch finds
// them all intact at the end (the sink never takes memory back on its
// own), and a consumer that recycles each batch after reading it gets
// every batch intact while the sink reuses a bounded set of buffers.
func TestPrefetchKeepsEveryBatch(t *testing.T) {
	rs := recs(400)
	for _, recycle := range []bool{false, true} {
		name := "keep"
		if recycle {
			name = "recycle"
		}
		t.Run(name, func(t *testing.T) {
			s := newSink(4)
			r := stage.Buffered(pipeline.TensorizeBatches(pipeline.From(batch.Of(source.Slice(rs), 4, batch.Keep, batch.Recycling())), s), 4)
			var kept []*tensor.Batch
			buffers := map[*tensor.Batch]bool{}
			bad := 0
			for ts, err := range r.All(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				i := len(kept)
				if !same(ts, want(rs[4*i:4*i+4], 0)) {
					bad++
				}
				kept = append(kept, ts)
				buffers[ts] = true
				if recycle {
					ts.Release()
				}
			}
			if len(kept) != 100 || bad != 0 {
				t.Errorf("%d batches, %d of them wrong when read; want 100, 0 wrong", len(kept), bad)
			}
			if recycle {
				// The consumer's batch, 2*4+1 read ahead by Buffered and one
				// being assembled.
				if len(buffers) > 4*2+3 {
					t.Errorf("%d buffers for 100 recycled batches", len(buffers))
				}
				return
			}
			for i, ts := range kept {
				if !same(ts, want(rs[4*i:4*i+4], 0)) {
					t.Errorf("batch %d changed after the consumer read it", i)
				}
			}
		})
	}
}
