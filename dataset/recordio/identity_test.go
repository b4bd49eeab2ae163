package recordio_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/testkit/checkpointtest"
	"github.com/tensorfeed/tensorfeed/source"
)

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

// An Indexed of one file and of several is a source.Identifier: a checkpoint of a
// pass over one file (or set) does not resume over another of as many
// records.
func TestIndexedIdentity(t *testing.T) {
	dir := t.TempDir()
	a, b := writeIndexed(t, dir, "a", 20, 'a'), writeIndexed(t, dir, "b", 20, 'b')
	a2, b2 := writeIndexed(t, dir, "a-2", 10, 'a'), writeIndexed(t, dir, "b-2", 10, 'b')
	open := func(path string) source.Indexed[[]byte] {
		f, err := recordio.OpenIndexed(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	checkpointtest.TableIdentity(t, "file",
		func() source.Indexed[[]byte] { return open(a) },
		func() source.Indexed[[]byte] { return open(b) })
	shards := func(paths ...string) source.Indexed[[]byte] {
		s, err := recordio.OpenIndexed(context.Background(), strings.Join(paths, ";"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	checkpointtest.TableIdentity(t, "shards",
		func() source.Indexed[[]byte] { return shards(a, a2) },
		func() source.Indexed[[]byte] { return shards(b, b2) })
	id, err := open(a).(source.Identifier).Identity(context.Background())
	if err != nil || !strings.Contains(id, "a.rec (") || !strings.Contains(id, "a.idx (") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want a.rec and a.idx by base name", id, err)
	}
}
