package csv_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/internal/testkit/checkpointtest"
	"github.com/tensorfeed/tensorfeed/source"
)

// writeRows writes a CSV file of n rows whose values start at add.
func writeRows(t *testing.T, dir, name string, n, add int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,%d\n", i+add, i%3)
	}
	return write(t, dir, name, b.String())
}

// A loaded table (and a MapIndexed over it) is a source.Identifier: a checkpoint
// of a pass over one file does not resume over a table of another file
// with as many rows.
func TestTableIdentity(t *testing.T) {
	dir := t.TempDir()
	a, b := writeRows(t, dir, "a.csv", 30, 10), writeRows(t, dir, "b.csv", 30, 40)
	load := func(path string) source.Indexed[csv.Row] {
		tab, err := csv.New(path, csv.LabelColumns(csv.Index(-1))).Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	checkpointtest.TableIdentity(t, "table",
		func() source.Indexed[csv.Row] { return load(a) },
		func() source.Indexed[csv.Row] { return load(b) })
	first := func(r csv.Row) (float32, error) { return r.Data[0], nil }
	checkpointtest.TableIdentity(t, "mapped",
		func() source.Indexed[float32] { return source.MapIndexed(load(a), first) },
		func() source.Indexed[float32] { return source.MapIndexed(load(b), first) })
	id, err := load(a).(source.Identifier).Identity(context.Background())
	if err != nil || !strings.Contains(id, "a.csv") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want the base name a.csv, without the folder", id, err)
	}
	want, err := csv.New(a, csv.LabelColumns(csv.Index(-1))).Identity(context.Background())
	if err != nil || id != want {
		t.Errorf("Identity = %q, the reader's = %q (%v)", id, want, err)
	}
}
