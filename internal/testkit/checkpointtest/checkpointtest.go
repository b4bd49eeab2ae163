// Package checkpointtest checks, for the dataset packages' tests, that a
// checkpoint of a pass over a random-access table knows the table's data:
// resumed over the same file it goes on, over another file of as many
// samples it is refused.
package checkpointtest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// TableIdentity takes a checkpoint of a pipeline of batches of 4
// over source.ReadIndexed(tab(), source.ShuffleIndex(1)) after two
// batches of epoch 0, as a training loop does, and resumes it over a table
// opened again from the same file (accepted: the run goes on) and over
// other, a table of another file with as many samples (refused: the
// error names the data). kind names the table in failures.
func TableIdentity[T any](t *testing.T, kind string, tab, other func() source.Indexed[T]) {
	t.Helper()
	ctx := context.Background()
	build := func(d source.Indexed[T]) *pipeline.Pipe[batch.Batch[T]] {
		return pipeline.Batch(pipeline.From[T](source.ReadIndexed(d, source.ShuffleIndex(1))), 4, batch.Keep)
	}
	p := build(tab())
	for _, pass := range p.Epochs(ctx, 1) {
		k := 0
		for _, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			if k++; k == 2 {
				break
			}
		}
		break
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Data == "" {
		t.Fatalf("%s: the checkpoint holds no identity of the data", kind)
	}
	at, err := p.CheckpointAt(ctx, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for name, ck := range map[string]*pipeline.Checkpoint{kind + ": Checkpoint": ck, kind + ": CheckpointAt": at} {
		rest, err := build(tab()).EpochsFrom(ctx, ck, 2)
		if err != nil {
			t.Fatalf("%s: the same file: %v", name, err)
		}
		n := 0
		for _, pass := range rest {
			for _, err := range pass {
				if err != nil {
					t.Fatalf("%s: the same file: %v", name, err)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: the same file: no batch after the resume", name)
		}
		_, err = build(other()).EpochsFrom(ctx, ck, 2)
		t.Logf("%s: another file: %v", name, err)
		if !errors.Is(err, pipeline.ErrCheckpoint) || !strings.Contains(err.Error(), "data") {
			t.Errorf("%s: another file of as many samples: %v, want an error wrapping ErrCheckpoint that names the data", name, err)
		}
	}
}
