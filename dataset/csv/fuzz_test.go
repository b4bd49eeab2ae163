package csv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
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
				var pe *tensorfeed.Error
				if !errors.As(err, &pe) || !errors.Is(err, csv.ErrFormat) || pe.Path != path || pe.Line < 1 {
					t.Fatalf("error %v is not a positioned *tensorfeed.Error", err)
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

// FuzzSkipAll reads arbitrary file contents as tensorfeed check --all
// does, with every bad row skipped and reported, and small limits: each
// bad row must be reported once, as a ParseError that points into the
// file, and only a problem with the file may end the pass.
func FuzzSkipAll(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n3\nx,4\n5,\"6\n"), true)
	f.Add([]byte("1,2\n3,4\"\n\"5\n6\",7\n"+strings.Repeat("8", 100)+",9\n"), false)
	f.Add([]byte("1,inf\n,\n\"\"\"\n"), false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, header bool) {
		path := filepath.Join(dir, "fuzz.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var skipped []*tensorfeed.Error
		opts := []csv.Option{csv.LabelColumns(csv.Index(-1)), csv.MaxLineBytes(64), csv.MaxFieldBytes(16), csv.Finite(),
			csv.OnBad(source.SkipBad(1, source.OnSkip(func(err error) {
				var pe *tensorfeed.Error
				if !errors.As(err, &pe) || !errors.Is(err, tensorfeed.ErrBadData) || pe.Path != path || pe.Line < 1 {
					t.Fatalf("skipped %v: not a positioned *tensorfeed.Error", err)
				}
				if n := len(skipped); n > 0 && pe.Line <= skipped[n-1].Line {
					t.Fatalf("skipped %v after %v", err, skipped[n-1])
				}
				skipped = append(skipped, pe)
			})))}
		if header {
			opts = append(opts, csv.Header())
		}
		r := csv.New(path, opts...)
		rows, lastLine := 0, 0
		for row, err := range r.All(context.Background()) {
			if err != nil {
				if !errors.Is(err, tensorfeed.ErrBadData) {
					t.Fatalf("error %v does not wrap tensorfeed.ErrBadData", err)
				}
				if (rows > 0 || len(skipped) > 0) && !errors.Is(err, csv.ErrTooLarge) {
					t.Fatalf("pass ended by %v after %d rows and %d skipped", err, rows, len(skipped))
				}
				break
			}
			if row.Line <= lastLine {
				t.Fatalf("row at line %d after line %d", row.Line, lastLine)
			}
			lastLine = row.Line
			rows++
		}
		if r.Skipped() != int64(len(skipped)) {
			t.Fatalf("Skipped() = %d, OnSkip saw %d", r.Skipped(), len(skipped))
		}
	})
}

// FuzzIntRows reads arbitrary file contents under DType(Int32) and
// DType(Int64): the reader must never panic, every row must hold integers
// of the layout's sizes (int32 ones within the int32 range) and no
// float32 values, and every failure must be a ParseError wrapping
// ErrFormat.
func FuzzIntRows(f *testing.F) {
	f.Add([]byte("200000001,1\n2147483648,0\n"), false)
	f.Add([]byte("a,b\n-1, +2 \n1.5,1e3\n9223372036854775808,x\n"), true)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, int64s bool) {
		path := filepath.Join(dir, "fuzz.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dt := sample.Int32
		if int64s {
			dt = sample.Int64
		}
		r := csv.New(path, csv.LabelColumns(csv.Index(-1)), csv.DType(dt))
		l, lerr := r.Layout()
		for row, err := range r.All(context.Background()) {
			if err != nil {
				var pe *tensorfeed.Error
				if !errors.As(err, &pe) || !errors.Is(err, csv.ErrFormat) || pe.Path != path || pe.Line < 1 {
					t.Fatalf("error %v is not a positioned *tensorfeed.Error", err)
				}
				return
			}
			if lerr != nil || l.DType != dt {
				t.Fatalf("Layout %+v, %v, but the pass yields rows", l, lerr)
			}
			if len(row.IntData) != len(l.DataCols) || len(row.IntLabel) != 1 || row.Data != nil || row.Label != nil {
				t.Fatalf("row %+v for layout %+v", row, l)
			}
			if dt == sample.Int32 {
				for _, v := range append(row.IntData, row.IntLabel...) {
					if v != int64(int32(v)) {
						t.Fatalf("int32 row holds %d", v)
					}
				}
			}
		}
	})
}
