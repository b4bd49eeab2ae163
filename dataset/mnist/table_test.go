package mnist_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

func TestTable(t *testing.T) {
	_, tab := tables(t)
	stream := collect(t, mnist.Test(plainT10k(t)))
	if tab.Len() != 10000 {
		t.Fatalf("Len = %d", tab.Len())
	}
	for i, want := range stream {
		got, err := tab.Get(i)
		if err != nil || !same(got, want) {
			t.Fatalf("Get(%d): index %d label %d, %v; the file's sample %d has label %d", i, got.Index, got.Label, err, want.Index, want.Label)
		}
	}
	for _, i := range []int{-1, 10000} {
		if _, err := tab.Get(i); !errors.Is(err, source.ErrIndex) {
			t.Fatalf("Get(%d): %v", i, err)
		}
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = tab.Get(5) }); a != 0 {
		t.Fatalf("Get allocates %v times", a)
	}
	// A second Load of the same files shares the decoded images.
	again, err := mnist.Test(dataDir).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tab.Get(7)
	b, _ := again.Get(7)
	if a.Image != b.Image {
		t.Error("a second Load decoded the files again")
	}
	if _, err := mnist.Test(t.TempDir()).Load(context.Background()); err == nil {
		t.Fatal("Load of a folder without MNIST files gave no error")
	}
}

// TestResumeByIndex: the README's pipeline over a table, shuffled by
// index, stopped after some batches and resumed from its checkpoint gives
// the rest of the epoch; the checkpoint holds the reader's position, not
// a replay.
func TestResumeByIndex(t *testing.T) {
	_, tab := tables(t)
	ctx := context.Background()
	feed := func() *pipeline.Pipe[*tensor.Batch] {
		return pipeline.Tensorize(pipeline.From(source.ReadIndexed(tab, source.ShuffleIndex(42))),
			sink.Of[mnist.Sample](100, sink.Scale("image", -1, 1)), batch.Keep).Buffered(4)
	}
	// run reads the batches of runs, up to stop of them (-1: all), and
	// returns their labels and the checkpoint after the last.
	run := func(p *pipeline.Pipe[*tensor.Batch], runs iter.Seq2[int, iter.Seq2[*tensor.Batch, error]], stop int) (out [][]int32, cp *pipeline.Checkpoint) {
		for _, pass := range runs {
			for b, err := range pass {
				if err != nil {
					t.Fatal(err)
				}
				l, _ := b.Get("label")
				out = append(out, slices.Clone(l.I32))
				b.Release()
				if len(out) == stop {
					if cp, err = p.Checkpoint(ctx); err != nil {
						t.Fatal(err)
					}
					return out, cp
				}
			}
		}
		return out, nil
	}
	straight := feed()
	full, _ := run(straight, straight.Epochs(ctx, 1), -1)
	first := feed()
	head, cp := run(first, first.Epochs(ctx, 1), 30)
	st := fmt.Sprint(cp.State)
	if cp.Step != 30 || strings.Contains(st, "replay") || !strings.Contains(st, "3000") {
		t.Errorf("checkpoint at step %d, state %s: want the position 3000 of a reader by index", cp.Step, st)
	}
	resumed := feed()
	runs, err := resumed.EpochsFrom(ctx, cp, 1)
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := run(resumed, runs, -1)
	if got := append(head, tail...); len(got) != 100 || !slices.EqualFunc(got, full, slices.Equal) {
		t.Errorf("resumed: %d batches, want the %d of a straight run, equal", len(got), len(full))
	}
}

// The training set decoded once, then read in a new order each epoch; a
// run stopped at position 1000 of epoch 2 resumes exactly there.
func ExampleDataset_Load() {
	tab, err := mnist.Train("../../data/mnist").Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	r := source.ReadIndexed(tab, source.ShuffleIndex(1))
	ctx := source.WithEpoch(context.Background(), 2)
	for s, err := range r.From(1000).All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(tab.Len(), "samples; position 1000 of epoch 2 is sample", s.Index, "a", s.Label)
		break
	}
	// Output: 60000 samples; position 1000 of epoch 2 is sample 38298 a 5
}
