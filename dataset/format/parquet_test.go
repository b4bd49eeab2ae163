package format_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

type parquetPoint struct {
	Features []float32 `parquet:"features,list"`
	Label    int64     `parquet:"label"`
	Name     string    `parquet:"name"`
}

func writeParquet(t *testing.T, dir, name string, n int) string {
	t.Helper()
	rows := make([]parquetPoint, n)
	for i := range rows {
		rows[i] = parquetPoint{Features: []float32{float32(i), 0.5}, Label: int64(i * 3), Name: string(rune('a' + i))}
	}
	p := filepath.Join(dir, name)
	w, err := parquet.Create[parquetPoint](p, parquet.RowGroupRows(2))
	if err == nil {
		if err = w.Write(rows...); err != nil {
			w.Abort()
		} else {
			err = w.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func parquetRegistry() *format.Registry {
	r := new(format.Registry)
	r.Register("parquet", format.Parquet())
	r.Register("csv", format.CSV(0))
	return r
}

// TestParquet reads Parquet files as records, one a row, tagged and
// recognised by their magic.
func TestParquet(t *testing.T) {
	dir := t.TempDir()
	a := writeParquet(t, dir, "a.parquet", 5)
	b := writeParquet(t, dir, "b.data", 3)
	reg := parquetRegistry()
	if name, err := reg.Detect(t.Context(), b); err != nil || name != "parquet" {
		t.Fatalf("detect: %q %v", name, err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("PAR"), 0o644); err != nil {
		t.Fatal(err)
	}
	if name, err := reg.Detect(t.Context(), short); err == nil {
		t.Fatalf("3 bytes detected as %q", name)
	}
	specs := []string{a, "parquet:" + filepath.Join(dir, "*.data")}
	r := format.Open(specs, format.WithRegistry(reg))
	recs, err := source.Collect(context.Background(), r)
	if err != nil || len(recs) != 8 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	r4 := recs[4]
	if r4.Path != a || r4.Index != 4 || r4.Offset < 4 || r4.Data != nil || len(r4.Fields) != 3 ||
		binary.LittleEndian.Uint64(r4.Fields["label"]) != 12 || string(r4.Fields["name"]) != "e" ||
		len(r4.Fields["features"]) != 8 {
		t.Fatalf("record 4: %+v", r4)
	}
	if r := recs[7]; r.Path != b || r.Index != 2 || string(r.Fields["name"]) != "c" {
		t.Fatalf("record 7: %+v", r)
	}
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
	// Two workers read the files at once; the order of the records
	// between files is then not fixed.
	r2 := format.Open(specs, format.WithRegistry(reg), format.Workers(2))
	if recs, err := source.Collect(context.Background(), r2); err != nil || len(recs) != 8 {
		t.Fatalf("two workers: %d records, %v", len(recs), err)
	}
	if err := sourcetest.TestReader(r2, sourcetest.Nondeterministic()); err != nil {
		t.Fatal(err)
	}
}

// TestParquetBad: a truncated Parquet file ends the pass with the
// package's positioned error naming the file, under a policy too.
func TestParquetBad(t *testing.T) {
	dir := t.TempDir()
	good := writeParquet(t, dir, "good.parquet", 4)
	bad := writeFile(t, dir, "bad.parquet", func(b *bytes.Buffer) { b.WriteString("PAR1 and then nothing of a file") })
	for _, opts := range [][]format.Option{nil, {format.OnBad(source.SkipBad(0.5))}} {
		_, err := source.Collect(context.Background(), format.Open([]string{good, bad}, append(opts, format.WithRegistry(parquetRegistry()))...))
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || fe.Path != bad || !errors.Is(err, tensorfeed.ErrBadData) {
			t.Fatalf("%v", err)
		}
	}
}
