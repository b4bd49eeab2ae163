package tfrecord_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source"
)

// Open takes a file list: ';'-separated paths, a directory (every file,
// in name order) and a glob; plain and gzip files mix.
func TestOpenLists(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tfrecord"), filepath.Join(dir, "b.tfrecord.gz")
	if err := os.WriteFile(a, encode(t, [][]byte{[]byte("a0"), []byte("a1")}, false), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, encode(t, [][]byte{[]byte("b0")}, true), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for list, want := range map[string]string{
		a:                                    "a0a1",
		a + ";" + b:                          "a0a1b0",
		b + ";" + a:                          "b0a0a1",
		dir:                                  "a0a1b0",
		filepath.Join(dir, "*.gz") + ";" + a: "b0a0a1",
	} {
		recs, err := source.Collect(ctx, tfrecord.Open(list))
		var got string
		for _, r := range recs {
			got += string(r.Data)
		}
		if err != nil || got != want {
			t.Errorf("Open(%q) = %q, %v; want %q", list, got, err, want)
		}
	}
	if _, err := source.Collect(ctx, tfrecord.Open(filepath.Join(dir, "*.none"))); err == nil {
		t.Error("a glob without a match: no error")
	}
}
