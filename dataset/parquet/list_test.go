package parquet_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
)

// Every reader takes a file list: ';'-separated paths, a directory (its
// .parquet files, in name order) and a glob.
func TestReadLists(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	if err := writeFile(a, digits(3, 4)); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(b, digits(5, 4)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for list, want := range map[string][]string{
		a + ";" + b:                         {a, a, a, b, b, b, b, b},
		b + ";" + a:                         {b, b, b, b, b, a, a, a},
		dir:                                 {a, a, a, b, b, b, b, b},
		filepath.Join(dir, "*.parquet"):     {a, a, a, b, b, b, b, b},
		filepath.Join(dir, "b.*") + ";" + a: {b, b, b, b, b, a, a, a},
	} {
		rows, err := source.Collect(ctx, parquet.ReadColumns(list, cols))
		if err != nil || len(rows) != len(want) {
			t.Fatalf("ReadColumns(%q): %d rows, %v", list, len(rows), err)
		}
		for i, r := range rows {
			if r.File != want[i] {
				t.Errorf("ReadColumns(%q): row %d from %s, want %s", list, i, r.File, want[i])
			}
		}
		d, err := parquet.OpenIndexed(parquet.Read[digit](list))
		if err != nil || d.Len() != len(want) {
			t.Fatalf("OpenIndexed(%q): %v", list, err)
		}
		d.Close()
		if n, err := source.Count(ctx, parquet.ReadRaw(list)); err != nil || n != len(want) {
			t.Errorf("ReadRaw(%q): %d rows, %v", list, n, err)
		}
	}
	if _, err := source.Collect(ctx, parquet.Read[digit](filepath.Join(dir, "*.none"))); err == nil {
		t.Error("a glob without a match: no error")
	}
}
