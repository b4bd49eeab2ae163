package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// mixed is a pipeline of batches from a mix of two shuffled tables at
// 0.7/0.3 (the second, 30 samples, re-iterated over an epoch of 200),
// through a ParallelMap with the given workers.
func mixed(workers int) *pipeline.Pipe[batch.Batch[int]] {
	a := pipeline.From[int](source.ReadIndexed(source.IndexSlice(seq(0, 100)), source.ShuffleIndex(1)))
	b := pipeline.Map(pipeline.From[int](source.ReadIndexed(source.IndexSlice(seq(0, 30)), source.ShuffleIndex(2))), func(v int) int { return 1000 + v })
	m := pipeline.Mix([]source.Reader[int]{a, b}, []float64{0.7, 0.3}, 3, 200)
	sq := pipeline.ParallelMap(m, workers, func(v int) (int, error) { return v * 10, nil })
	return pipeline.Batch(sq, 8, batch.Keep)
}

// batchesOf collects the batches of every epoch of epochs.
func batchesOf(t *testing.T, epochs iter.Seq2[int, iter.Seq2[batch.Batch[int], error]]) [][]int {
	t.Helper()
	var out [][]int
	for _, pass := range epochs {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, slices.Clone(b.Samples))
		}
	}
	return out
}

// checkResume runs build(1) straight for 3 epochs, then build(3) stopped
// at step stop of epoch 1, checkpointed (through JSON), and resumed with
// build(2): the resumed run's batches are the straight run's rest.
func checkResume(t *testing.T, build func(workers int) *pipeline.Pipe[batch.Batch[int]], stop int64) {
	t.Helper()
	ctx := context.Background()
	straight := batchesOf(t, build(1).Epochs(ctx, 3))

	feed := build(3)
	var head [][]int
	var ck *pipeline.Checkpoint
stopped:
	for _, pass := range feed.Epochs(ctx, 3) {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			head = append(head, slices.Clone(b.Samples))
			if epoch, step := feed.Position(); epoch == 1 && step == stop {
				var err error
				if ck, err = feed.Checkpoint(ctx); err != nil {
					t.Fatal(err)
				}
				break stopped
			}
		}
	}
	if ck == nil {
		t.Fatalf("the run never reached step %d of epoch 1", stop)
	}
	js, err := ck.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if ck, err = pipeline.ParseCheckpoint(js); err != nil {
		t.Fatal(err)
	}
	resumed := build(2)
	epochs, err := resumed.EpochsFrom(ctx, ck, 3)
	if err != nil {
		t.Fatal(err)
	}
	rest := batchesOf(t, epochs)
	if got := append(head, rest...); !slices.EqualFunc(got, straight, slices.Equal) {
		t.Fatalf("stopped at epoch 1 step %d with 3 workers and resumed with 2: %d batches, differing from the straight run's %d", stop, len(got), len(straight))
	}
}

func TestMixResumeWithOtherWorkers(t *testing.T) {
	for _, stop := range []int64{1, 6, 25} {
		checkResume(t, mixed, stop)
	}
}

// TestMixAndInterleaveSteps: the steps are named as their state kinds,
// with the pipes they read as inputs, and the counts add up.
func TestMixAndInterleaveSteps(t *testing.T) {
	for name, feed := range map[string]*pipeline.Pipe[batch.Batch[int]]{"mix": mixed(2), "interleave": interleaved(2)} {
		if _, err := collect(t, context.Background(), feed); err != nil {
			t.Fatal(err)
		}
		st, err := feed.StateAt(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range feed.Stats() {
			if s.Name == name {
				found = true
			}
		}
		if !found || !slices.ContainsFunc(st.In[0].In, func(s source.State) bool { return len(s.Kind) > len(name) && s.Kind[:len(name)+1] == name+"(" }) {
			t.Errorf("%s: no step %q in %v, or no state of kind %s( under %s", name, name, feed.Stats(), name, st.Shape())
		}
		if n := len(feed.Stats()); n < 6 {
			t.Errorf("%s: %d steps, want the inputs' steps too", name, n)
		}
	}
}

// TestMixErrorsOnce: an input's error ends the pass once; an empty input
// to re-iterate is bad data.
func TestMixErrorsOnce(t *testing.T) {
	m := pipeline.Mix([]source.Reader[int]{count(1000), failAfter(20, errBoom)}, []float64{1, 1}, 1, 0)
	got, err := collect(t, context.Background(), m)
	if !errors.Is(err, errBoom) || len(got) < 20 {
		t.Fatalf("%d samples, error %v", len(got), err)
	}
	empty := pipeline.Mix([]source.Reader[int]{count(10), count(0)}, []float64{1, 1}, 1, 50)
	if _, err := collect(t, context.Background(), empty); !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("empty input: %v", err)
	}
	l := pipeline.Interleave([]source.Reader[int]{count(10), failAfter(3, errBoom), count(10)}, 2, 2)
	if _, err := collect(t, context.Background(), l); !errors.Is(err, errBoom) {
		t.Fatalf("interleave: %v", err)
	}
}

// Two datasets drawn at random at 0.7/0.3, the second re-iterated: an
// epoch of 12 samples, the same again for the same epoch.
func ExampleMix() {
	big := source.Slice([]string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"})
	small := source.Slice([]string{"b0", "b1"})
	feed := pipeline.Mix([]source.Reader[string]{big, small}, []float64{0.7, 0.3}, 42, 12)
	for epoch, pass := range feed.Epochs(context.Background(), 2) {
		var got []string
		for s, err := range pass {
			if err != nil {
				panic(err)
			}
			got = append(got, s)
		}
		fmt.Println(epoch, got)
	}
	// Output:
	// 0 [a0 b0 a1 b1 a2 a3 a4 b0 a5 a6 a7 a8]
	// 1 [a0 b0 a1 b1 a2 a3 b0 b1 a4 a5 a6 b0]
}
