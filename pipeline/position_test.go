package pipeline_test

import (
	"context"
	"iter"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

// firsts is the first value of every batch a loop received, in order: the
// stream's identity, since the values are distinct.
type firsts []int

// consume ranges the passes, appending each batch's first value, and
// stops after stop batches (stop < 0: never). It counts nothing itself: the
// position is the feed's.
func (f *firsts) consume(t *testing.T, epochs iter.Seq2[int, iter.Seq2[batch.Batch[int], error]], stop int) {
	t.Helper()
	n := 0
	for _, pass := range epochs {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			*f = append(*f, b.Samples[0])
			if n++; n == stop {
				return
			}
		}
	}
}

// TestPositionResumesTwice stops a run, resumes it from a checkpoint file
// in a new pipeline, stops it again, and resumes once more: the feed keeps
// the position across the resumes (the second checkpoint is at the first's
// step plus what the second run received, not at what the second run
// received alone), and the three pieces are the straight run.
func TestPositionResumesTwice(t *testing.T) {
	ctx := context.Background()
	build := mnistLike(1000, 32) // 32 batches per epoch, the last short
	const epochs = 3
	var want firsts
	want.consume(t, build(0).Epochs(ctx, epochs), -1)

	dir := t.TempDir()
	ckPath := filepath.Join(dir, "ck.json")
	var got firsts

	// First run: 20 batches of epoch 0.
	p := build(0)
	if e, s := p.Position(); e != 0 || s != 0 {
		t.Fatalf("before any pass: position (%d, %d), want (0, 0)", e, s)
	}
	got.consume(t, p.Epochs(ctx, epochs), 20)
	if e, s := p.Position(); e != 0 || s != 20 {
		t.Fatalf("after 20 batches: position (%d, %d), want (0, 20)", e, s)
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := ck.WriteFile(ckPath); err != nil {
		t.Fatal(err)
	}

	// Second run, another pipeline with other worker counts: 30 more
	// batches, across the end of epoch 0 (12 left in it) into epoch 1.
	for _, resumeAt := range []struct {
		batches   int
		wantEpoch int
		wantStep  int64
	}{{30, 1, 18}, {-1, epochs - 1, 32}} {
		ck, err := pipeline.ReadCheckpoint(ckPath)
		if err != nil {
			t.Fatal(err)
		}
		q := build(1)
		runs, err := q.EpochsFrom(ctx, ck, epochs)
		if err != nil {
			t.Fatal(err)
		}
		if e, s := q.Position(); e != ck.Epoch || s != ck.Step {
			t.Fatalf("resumed from (%d, %d), before its pass: position (%d, %d)", ck.Epoch, ck.Step, e, s)
		}
		got.consume(t, runs, resumeAt.batches)
		e, s := q.Position()
		if e != resumeAt.wantEpoch || s != resumeAt.wantStep {
			t.Fatalf("resumed from (%d, %d), %d batches later: position (%d, %d), want (%d, %d)",
				ck.Epoch, ck.Step, resumeAt.batches, e, s, resumeAt.wantEpoch, resumeAt.wantStep)
		}
		next, err := q.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if next.Epoch != e || next.Step != s {
			t.Fatalf("checkpoint at (%d, %d), position (%d, %d)", next.Epoch, next.Step, e, s)
		}
		if err := next.WriteFile(ckPath); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("three runs joined: %d batches, straight run %d; they differ", len(got), len(want))
	}
}
