package parquet_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
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

// The datasets of OpenIndexed and OpenColumnsIndexed are
// source.Identifiers: a checkpoint of a pass over one file does not resume
// over another file of as many rows.
func TestIndexedIdentity(t *testing.T) {
	type row struct {
		X int64 `parquet:"x"`
	}
	dir := t.TempDir()
	write := func(name string, add int64) string {
		t.Helper()
		rows := make([]row, 40)
		for i := range rows {
			rows[i].X = int64(i)*3 + add
		}
		path := filepath.Join(dir, name)
		if err := parquet.WriteFile(path, rows, parquet.RowGroupRows(8)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := write("a.parquet", 0), write("b.parquet", 1)
	structs := func(path string) func() source.Indexed[row] {
		return func() source.Indexed[row] {
			d, err := parquet.OpenIndexed[row]([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		}
	}
	checkTableIdentity(t, "structs", structs(a), structs(b))
	columns := func(path string) func() source.Indexed[parquet.Row] {
		return func() source.Indexed[parquet.Row] {
			d, err := parquet.OpenColumnsIndexed([]string{path}, []parquet.Column{{Name: "x", DType: sample.Int64}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		}
	}
	checkTableIdentity(t, "columns", columns(a), columns(b))

	d := structs(a)().(*parquet.Indexed[row])
	id, err := d.Identity(context.Background())
	if err != nil || !strings.Contains(id, "a.parquet (") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want a.parquet by its base name", id, err)
	}
	want, err := parquet.Read[row]([]string{a}).Identity(context.Background())
	if err != nil || id != want {
		t.Errorf("Identity = %q, the reader's = %q (%v)", id, want, err)
	}
}
