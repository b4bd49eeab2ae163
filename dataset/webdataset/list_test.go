package webdataset_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source"
)

// Open takes a file list: ';'-separated paths, a directory (every file,
// in name order) and a glob.
func TestOpenLists(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.tar", shardBytes(t, smallSamples(0, 2)))
	b := writeFile(t, dir, "b.tar", shardBytes(t, smallSamples(2, 3)))
	ctx := context.Background()
	for list, want := range map[string][]string{
		a + ";" + b:                         {a, a, b, b, b},
		b + ";" + a:                         {b, b, b, a, a},
		dir:                                 {a, a, b, b, b},
		filepath.Join(dir, "*.tar"):         {a, a, b, b, b},
		filepath.Join(dir, "b.*") + ";" + a: {b, b, b, a, a},
	} {
		got, err := source.Collect(ctx, webdataset.Open(list))
		if err != nil || len(got) != len(want) {
			t.Fatalf("Open(%q): %d samples, %v", list, len(got), err)
		}
		for i, s := range got {
			if s.Shard != want[i] {
				t.Errorf("Open(%q): sample %d from %s, want %s", list, i, s.Shard, want[i])
			}
		}
	}
	if _, err := source.Collect(ctx, webdataset.Open(filepath.Join(dir, "*.none"))); err == nil {
		t.Error("a glob without a match: no error")
	}
}
