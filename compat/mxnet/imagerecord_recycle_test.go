package mxnet

import (
	"context"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
)

// A short last batch takes the memory of a released full batch, has its
// own shapes and data, and goes back as a full batch: a second pass
// allocates no batch.
func TestIterRecycleShortBatch(t *testing.T) {
	cfg := mnistConfig()
	cfg.Backend.Prefetch = -1
	cfg.Backend.Threads = 1
	cfg.Batch.Size = 64 // 1000 images: 15 full batches and one of 40
	cfg.Batch.Last = batch.Keep
	it := newIter(t, cfg)
	want := pass(t, it) // not released
	seen := map[*float32]bool{}
	for round := range 3 {
		var mem []*float32
		i := 0
		for b, err := range it.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			w := want[i]
			if !slices.Equal(b.Data[0].Shape, w.Data[0].Shape) || !slices.Equal(b.Label[0].Shape, w.Label[0].Shape) ||
				!slices.Equal(b.Data[0].F32, w.Data[0].F32) || !slices.Equal(b.Label[0].F32, w.Label[0].F32) {
				t.Fatalf("batch %d (%v) differs from the first pass's (%v)", i, b.Data[0].Shape, w.Data[0].Shape)
			}
			mem = append(mem, &b.Data[0].F32[0])
			b.Release()
			i++
		}
		if i != len(want) || want[i-1].Len() != 40 {
			t.Fatalf("%d batches, the last of %d", i, want[i-1].Len())
		}
		if last := mem[len(mem)-1]; round > 0 && !seen[last] {
			t.Errorf("pass %d: the short batch has memory of its own", round+1)
		}
		for _, m := range mem {
			seen[m] = true
		}
	}
}

// A short batch made while no full batch has come back (the consumer holds
// them all) still goes back as a full one, so from the second pass on no
// batch is allocated.
func TestIterRecycleShortBatchHeld(t *testing.T) {
	cfg := mnistConfig()
	cfg.Backend.Prefetch = -1
	cfg.Backend.Threads = 1
	cfg.Batch.Size = 512 // 1000 images: a full batch and one of 488
	cfg.Batch.Last = batch.Keep
	it := newIter(t, cfg)
	seen := map[*float32]bool{}
	for round := range 3 {
		var held []func()
		fresh := 0
		for b, err := range it.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if !seen[&b.Data[0].F32[0]] {
				fresh++
			}
			seen[&b.Data[0].F32[0]] = true
			held = append(held, b.Release)
		}
		for _, release := range held {
			release()
		}
		if round > 0 && fresh > 0 {
			t.Errorf("pass %d allocated %d batches", round+1, fresh)
		}
	}
}
