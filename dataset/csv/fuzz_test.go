package csv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
)

// FuzzRows reads arbitrary file contents with and without a header and a
// label column: the reader must never panic, every row must have the
// layout's sizes, and every failure must be a ParseError wrapping
// ErrFormat.
func FuzzRows(f *testing.F) {
	for _, name := range []string{"iris.csv", "iris_data.csv", "veterans_lung_cancer.csv", "iris.data"} {
		b, err := os.ReadFile(td(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 400)], false)
	}
	f.Add([]byte("a,b\n1,2\n3\n"), true)
	f.Add([]byte("inf,nan\n\"1\",2\n"), false)
	f.Add([]byte("1,\"2\n3\",4\n"), false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, header bool) {
		path := filepath.Join(dir, "fuzz.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := []csv.Option{csv.LabelColumns(csv.Index(-1))}
		if header {
			opts = append(opts, csv.Header())
		}
		r := csv.New(path, opts...)
		l, lerr := r.Layout()
		rows := 0
		for row, err := range r.All(context.Background()) {
			if err != nil {
				var pe *csv.ParseError
				if !errors.As(err, &pe) || !errors.Is(err, csv.ErrFormat) || pe.File != path || pe.Line < 1 {
					t.Fatalf("error %v is not a positioned ParseError", err)
				}
				if rows == 0 && lerr == nil && !errors.Is(err, csv.ErrNumber) && !errors.Is(err, csv.ErrFieldCount) && !errors.Is(err, csv.ErrClass) {
					// Layout succeeded, so the pass's start did too.
					t.Fatalf("pass failed at its start (%v) where Layout did not", err)
				}
				return
			}
			if lerr != nil {
				t.Fatalf("Layout failed (%v) but the pass yields rows", lerr)
			}
			if len(row.Data) != len(l.DataCols) || len(row.Label) != 1 || row.Line < 1 {
				t.Fatalf("row %+v for layout %+v", row, l)
			}
			rows++
		}
		if lerr != nil {
			t.Fatalf("Layout failed (%v) but the pass did not", lerr)
		}
	})
}
