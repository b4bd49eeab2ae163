package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
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

// writeIndexed writes dir/name.rec of n records, whose payloads are as
// long in every file and differ by tag, and its dir/name.idx.
func writeIndexed(t *testing.T, dir, name string, n int, tag byte) string {
	t.Helper()
	var data, idx bytes.Buffer
	w := recordio.NewWriter(&data)
	for i := range n {
		idx.Write(recordio.AppendIndexLine(nil, int64(i), w.Tell()))
		if err := w.Write([]byte(fmt.Sprintf("%c-%03d", tag, i))); err != nil {
			t.Fatal(err)
		}
	}
	rec := filepath.Join(dir, name+".rec")
	if err := os.WriteFile(rec, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".idx"), idx.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return rec
}

// An IndexedFile and a ShardSet are source.Identifiers: a checkpoint of a
// pass over one file (or set) does not resume over another of as many
// records.
func TestIndexedIdentity(t *testing.T) {
	dir := t.TempDir()
	a, b := writeIndexed(t, dir, "a", 20, 'a'), writeIndexed(t, dir, "b", 20, 'b')
	a2, b2 := writeIndexed(t, dir, "a-2", 10, 'a'), writeIndexed(t, dir, "b-2", 10, 'b')
	open := func(path string) source.Indexed[[]byte] {
		f, err := recordio.OpenIndexed(path, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	checkTableIdentity(t, "file",
		func() source.Indexed[[]byte] { return open(a) },
		func() source.Indexed[[]byte] { return open(b) })
	shards := func(paths ...string) source.Indexed[[]byte] {
		s, err := recordio.OpenShards(context.Background(), paths)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	checkTableIdentity(t, "shards",
		func() source.Indexed[[]byte] { return shards(a, a2) },
		func() source.Indexed[[]byte] { return shards(b, b2) })
	id, err := open(a).(source.Identifier).Identity(context.Background())
	if err != nil || !strings.Contains(id, "a.rec (") || !strings.Contains(id, "a.idx (") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want a.rec and a.idx by base name", id, err)
	}
	if _, ok := source.Indexed[[]byte](recordio.NewRandomReader(bytes.NewReader(nil), 0, nil)).(source.Identifier); ok {
		t.Error("a RandomReader over bytes in memory is an Identifier")
	}
}
