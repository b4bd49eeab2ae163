package parquet_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/internal/testkit/checkpointtest"
	"github.com/tensorfeed/tensorfeed/source"
)

// The datasets of OpenIndexed over Read and over ReadColumns are
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
		if err := writeFile(path, rows, parquet.RowGroupRows(8)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := write("a.parquet", 0), write("b.parquet", 1)
	structs := func(path string) func() source.Indexed[row] {
		return func() source.Indexed[row] {
			d, err := parquet.OpenIndexed(parquet.Read[row](path))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		}
	}
	checkpointtest.TableIdentity(t, "structs", structs(a), structs(b))
	columns := func(path string) func() source.Indexed[parquet.Row] {
		return func() source.Indexed[parquet.Row] {
			d, err := parquet.OpenIndexed(parquet.ReadColumns(path, []parquet.Column{parquet.Int64("x")}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		}
	}
	checkpointtest.TableIdentity(t, "columns", columns(a), columns(b))

	d := structs(a)().(source.Identifier)
	id, err := d.Identity(context.Background())
	if err != nil || !strings.Contains(id, "a.parquet (") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want a.parquet by its base name", id, err)
	}
	want, err := parquet.Read[row](a).(source.Identifier).Identity(context.Background())
	if err != nil || id != want {
		t.Errorf("Identity = %q, the reader's = %q (%v)", id, want, err)
	}
}
