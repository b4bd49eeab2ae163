package pipeline_test

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// spun keeps spin's work from being optimised away.
var spun atomic.Int64

// spin does a little work, so that workers overlap, and returns v.
func spin(v int) int {
	x := v
	for i := range 2000 {
		x = x*31 + i
	}
	spun.Add(int64(x & 1))
	return v
}

// tuned is a pipeline with two ParallelMap(Auto) steps and a
// Buffered(Auto), or the same with hand-set sizes when auto is false.
func tuned(auto bool, active, most *atomic.Int64, opts ...pipeline.Option) *pipeline.Pipe[batch.Batch[int]] {
	workers, buffer := 3, 4
	if auto {
		workers, buffer = pipeline.Auto, pipeline.Auto
	}
	f := func(v int) (int, error) {
		n := active.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		defer active.Add(-1)
		return spin(v), nil
	}
	p := pipeline.From[int](source.ReadIndexed(source.IndexSlice(seq(0, 3000)), source.ShuffleIndex(5)), opts...)
	a := pipeline.ParallelMap(p, workers, f)
	b := pipeline.ParallelMap(a, workers, func(v int) (int, error) { return f(v + 1) })
	return pipeline.Batch(b, 16, batch.Keep).Buffered(buffer)
}

// TestAutoSameBatchesWithinBudget: Auto steps give the batches of
// hand-set ones; never more than the budget's cores run f at once over
// both steps; Report shows the choices; a checkpoint taken with Auto
// resumes with hand-set sizes, to the same batches.
func TestAutoSameBatchesWithinBudget(t *testing.T) {
	ctx := context.Background()
	var active, most atomic.Int64
	want := batchesOf(t, tuned(false, &active, &most).Epochs(ctx, 2))
	most.Store(0)
	feed := tuned(true, &active, &most, pipeline.Autotune(2, 1<<20))
	got := batchesOf(t, feed.Epochs(ctx, 2))
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatal("Auto steps give other batches than hand-set ones")
	}
	if m := most.Load(); m > 2 || m < 1 {
		t.Fatalf("%d calls of f at once, budget 2", m)
	}
	report := feed.Stats().Report().String()
	if !strings.Contains(report, "parallel-map (auto ") || !strings.Contains(report, "/2)") || !strings.Contains(report, "buffered (auto ") {
		t.Fatalf("Report does not show the choices:\n%s", report)
	}
	t.Logf("\n%s", report)

	// Stop with Auto at step 40 of epoch 1, resume hand-set.
	stopped := tuned(true, &active, &most, pipeline.Autotune(2, 1<<20))
	var head [][]int
	var ck *pipeline.Checkpoint
run:
	for _, pass := range stopped.Epochs(ctx, 2) {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			head = append(head, slices.Clone(b.Samples))
			if e, s := stopped.Position(); e == 1 && s == 40 {
				var err error
				if ck, err = stopped.Checkpoint(ctx); err != nil {
					t.Fatal(err)
				}
				break run
			}
		}
	}
	epochs, err := tuned(false, &active, &most).EpochsFrom(ctx, ck, 2)
	if err != nil {
		t.Fatal(err)
	}
	if all := append(head, batchesOf(t, epochs)...); !slices.EqualFunc(all, want, slices.Equal) {
		t.Fatal("a run stopped with Auto and resumed hand-set differs from the straight run")
	}
}

// TestAutoContract: a pipeline of Auto steps keeps the reader contract
// (break, cancel, errors once, no goroutine left, resume).
func TestAutoContract(t *testing.T) {
	var active, most atomic.Int64
	if err := sourcetest.TestReader(tuned(true, &active, &most, pipeline.Autotune(2, 4096))); err != nil {
		t.Fatal(err)
	}
	err := sourcetest.TestStage(func(up source.Reader[int]) source.Reader[int] {
		return pipeline.ParallelMap(pipeline.From(up, pipeline.Autotune(3, 0)), pipeline.Auto, func(v int) (int, error) { return v, nil }).Buffered(pipeline.Auto)
	}, func(i int) int { return i })
	if err != nil {
		t.Fatal(err)
	}
}

// TestAutoPrefetchBytes: Buffered(Auto) holds no more than the budget's
// bytes ahead of a slow consumer (one sample always goes ahead).
func TestAutoPrefetchBytes(t *testing.T) {
	var produced atomic.Int64
	up := source.Func[[]float32](func(ctx context.Context) iter.Seq2[[]float32, error] {
		return func(yield func([]float32, error) bool) {
			for range 200 {
				produced.Add(1)
				if !yield(make([]float32, 1000), nil) { // 4000 bytes
					return
				}
			}
		}
	})
	feed := pipeline.From[[]float32](up, pipeline.Autotune(1, 20_000)).Buffered(pipeline.Auto)
	received := int64(0)
	most := int64(0)
	for _, err := range feed.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		received++
		spin(int(received))
		for range 50 { // let the reader run ahead as far as it may
			spin(0)
		}
		most = max(most, produced.Load()-received)
	}
	// 5 samples of 4000 bytes fit 20000; one more is read and waits.
	if most > 6 {
		t.Fatalf("%d samples ahead of the consumer, budget 5", most)
	}
	if received != 200 {
		t.Fatalf("%d samples", received)
	}
}

// Steps sized as the pass runs: at most 2 cores mapping, at most 1 MiB
// read ahead. The samples are those of hand-set sizes.
func ExampleAutotune() {
	p := pipeline.From(source.Slice(seq(0, 1000)), pipeline.Autotune(2, 1<<20))
	squares := pipeline.ParallelMap(p, pipeline.Auto, func(v int) (int, error) { return v * v, nil })
	out, err := source.Collect(context.Background(), squares.Buffered(pipeline.Auto))
	fmt.Println(len(out), out[:5], out[999], err)
	// Output: 1000 [0 1 4 9 16] 998001 <nil>
}
