package mxnet

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/race"
	"github.com/tensorfeed/tensorfeed/sample"
)

// A pass reads its records into buffers that the next records reuse once
// their images are in the batch: a second pass allocates far less than
// one buffer per record, with one thread and with two, in file order and
// through a shuffle buffer, and the padding of the last batch (the pass's
// first images, Pad and RoundBatch) is still those images.
func TestIterRecordBuffersReused(t *testing.T) {
	for _, threads := range []int{1, 2} {
		for _, c := range []struct {
			last    batch.Policy
			shuffle bool
		}{{batch.Pad, false}, {batch.RoundBatch, false}, {batch.Keep, false}, {batch.Keep, true}} {
			cfg := mnistConfig()
			cfg.Batch.Last = c.last
			cfg.Data.Shuffle, cfg.Data.ShuffleBuffer, cfg.Data.Seed = c.shuffle, 200, 3
			cfg.Backend.Threads = threads
			// A decoder that allocates nothing, so that what a pass
			// allocates is the pipeline's.
			cfg.Backend.Decoder = constDecoder{sample.NewImage(28, 28, 3)}
			it := newIter(t, cfg)
			// The fewest allocations of 3 passes after the first: how many
			// records are read ahead while a batch is filled depends on
			// timing, and the buffers are as many as the most in flight.
			releaseAll(t, it)
			var fewest, fewestBufs uint64 = math.MaxUint64, math.MaxUint64
			var first, lastB []float32 // labels of the first and last batches
			for range 3 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				made := it.proc.bufs.made.Load()
				first = nil
				for b, err := range it.All(context.Background()) {
					if err != nil {
						t.Fatal(err)
					}
					if first == nil {
						first = slices.Clone(b.Label[0].F32)
					}
					lastB = append(lastB[:0], b.Label[0].F32...)
					b.Release()
				}
				runtime.ReadMemStats(&after)
				fewest = min(fewest, after.Mallocs-before.Mallocs)
				fewestBufs = min(fewestBufs, uint64(it.proc.bufs.made.Load()-made))
			}
			// Fewer allocations than half the records (each record's bytes
			// were one); a batch's memory is a few.
			if fewest > 500 && !race.Enabled {
				t.Errorf("%d threads, %v, shuffle %v: a pass of 1000 records made %d allocations", threads, c.last, c.shuffle, fewest)
			}
			// Without padding, every record's buffer goes back to the
			// pool: with one thread (with two, how far the reading runs
			// ahead of the fills varies) a later pass allocates none.
			if c.last == batch.Keep && threads == 1 && fewestBufs > 0 {
				t.Errorf("%d threads, %v, shuffle %v: a pass allocated %d record buffers", threads, c.last, c.shuffle, fewestBufs)
			}
			// 1000 images in batches of 128: the last holds 104 and, but
			// with Keep, 24 of padding: the labels of the first 24 rows.
			if c.last != batch.Keep && !slices.Equal(lastB[104:], first[:24]) {
				t.Errorf("%d threads, %v: the padding rows are not the first images", threads, c.last)
			}
		}
	}
	// The padding rows decode the first images again: their bytes were
	// not handed to later records (the real decoder).
	for _, threads := range []int{1, 2} {
		cfg := mnistConfig()
		cfg.Backend.Threads = threads
		bs := pass(t, newIter(t, cfg))
		first, lastB := bs[0].Data[0].F32, bs[len(bs)-1].Data[0].F32
		per := len(first) / bs[0].Len()
		if !slices.Equal(lastB[104*per:], first[:24*per]) {
			t.Errorf("%d threads: the padding rows are not the first images", threads)
		}
	}
}

// constDecoder decodes every image to img, allocating nothing.
type constDecoder struct{ img sample.Image }

func (constDecoder) Name() string { return "const" }

func (d constDecoder) Decode([]byte, decode.Options) (sample.Image, error) { return d.img, nil }

// releaseAll reads a pass of it, releasing every batch.
func releaseAll(t *testing.T, it *recIter) {
	t.Helper()
	for b, err := range it.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
}

// With several threads the batches in memory are the one the consumer
// holds and the one the threads fill, however slowly the consumer reads:
// the buffered step holds none on top. Batches of 69 MB (22 images of
// 3x512x512 float32), of which Tensorize's memory bound holds one.
func TestIterThreadsHoldTwoBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 4 batches of 69 MB")
	}
	cfg := mnistConfig()
	cfg.Data.Shape = [3]int{3, 512, 512}
	cfg.Aug.Pad = 242 // 28 + 2*242 = 512
	cfg.Batch = batchOptions{Size: 22, Last: batch.Drop}
	cfg.Backend.Threads = 2
	it := newIter(t, cfg)
	seen := map[*float32]bool{}
	n := 0
	for b, err := range it.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		seen[&b.Data[0].F32[0]] = true
		time.Sleep(400 * time.Millisecond) // the threads could fill several batches meanwhile
		b.Release()
		if n++; n == 5 {
			break
		}
	}
	if len(seen) > 2 {
		t.Errorf("%d batches' memory in 5 batches, want at most 2", len(seen))
	}
}
