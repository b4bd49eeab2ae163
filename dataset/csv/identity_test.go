package csv_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// checkTableIdentity takes a checkpoint of a pipeline of batches of 4
// over source.ReadIndexed(tab(), source.ShuffleIndex(1)) after two
// batches of epoch 0, as a training loop does, and resumes it over a table
// opened again from the same file (accepted: the run goes on) and over
// other, a table of another file with as many samples (refused: the
// error names the data). kind names the table in failures.
func checkTableIdentity[T any](t *testing.T, kind string, tab, other func() source.Indexed[T]) {
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

// writeRows writes a CSV file of n rows whose values start at add.
func writeRows(t *testing.T, dir, name string, n, add int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,%d\n", i+add, i%3)
	}
	return write(t, dir, name, b.String())
}

// A Table (and a MapIndexed over it) is a source.Identifier: a checkpoint
// of a pass over one file does not resume over a table of another file
// with as many rows.
func TestTableIdentity(t *testing.T) {
	dir := t.TempDir()
	a, b := writeRows(t, dir, "a.csv", 30, 10), writeRows(t, dir, "b.csv", 30, 40)
	load := func(path string) *csv.Table {
		tab, err := csv.New(path, csv.LabelColumns(csv.Index(-1))).Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	checkTableIdentity(t, "table",
		func() source.Indexed[csv.Row] { return load(a) },
		func() source.Indexed[csv.Row] { return load(b) })
	first := func(r csv.Row) (float32, error) { return r.Data[0], nil }
	checkTableIdentity(t, "mapped",
		func() source.Indexed[float32] { return source.MapIndexed(load(a), first) },
		func() source.Indexed[float32] { return source.MapIndexed(load(b), first) })
	id, err := load(a).Identity(context.Background())
	if err != nil || !strings.Contains(id, "a.csv") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want the base name a.csv, without the folder", id, err)
	}
	want, err := csv.New(a, csv.LabelColumns(csv.Index(-1))).Identity(context.Background())
	if err != nil || id != want {
		t.Errorf("Identity = %q, the reader's = %q (%v)", id, want, err)
	}
}
