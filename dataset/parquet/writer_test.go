package parquet_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
)

// blobRow is a row with a large byte-array value, as an image or a record
// payload is stored.
type blobRow struct {
	Key   string `parquet:"key"`
	Blob  []byte `parquet:"blob"`
	Label int64  `parquet:"label"`
}

// A large byte-array value is stored once: its column's statistics and
// page headers do not copy it, so the footer stays small and a reader with
// a footer bound far below the value's size reads the file; the numeric
// column keeps its bounds.
func TestWriterLargeValue(t *testing.T) {
	const size = 2 << 20
	blob := bytes.Repeat([]byte{0xab, 0x01, 0x7f}, size/3)
	path := filepath.Join(t.TempDir(), "blob.parquet")
	rows := []blobRow{{Key: "a", Blob: blob, Label: 7}, {Key: "b", Blob: blob[:10], Label: -3}}
	if err := writeFile(path, rows); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > int64(len(blob))+64<<10 {
		t.Errorf("the file holds %d bytes for %d bytes of values: a value is copied", st.Size(), len(blob)+10)
	}

	n := 0
	for r, err := range parquet.ReadRaw(path, parquet.MaxFooterBytes(64<<10), parquet.MaxPageBytes(size+64<<10)).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.Fields["blob"], rows[n].Blob) {
			t.Fatalf("row %d: blob of %d bytes, want %d", n, len(r.Fields["blob"]), len(rows[n].Blob))
		}
		n++
	}
	if n != len(rows) {
		t.Fatalf("%d rows, want %d", n, len(rows))
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range pf.Metadata().RowGroups[0].Columns {
		s := cc.MetaData.Statistics
		switch name := cc.MetaData.PathInSchema[0]; name {
		case "label":
			if len(s.MinValue) != 8 || len(s.MaxValue) != 8 {
				t.Errorf("label: statistics %v, want the bounds kept", s)
			}
		default:
			if len(s.MinValue)+len(s.MaxValue)+len(s.Min)+len(s.Max) > 0 {
				t.Errorf("%s: bounds of %d and %d bytes in the footer", name, len(s.MinValue), len(s.MaxValue))
			}
		}
	}
}

// Flush ends a row group where the caller says, and does nothing when no
// row was written since the last one.
func TestWriterFlush(t *testing.T) {
	path := filepath.Join(t.TempDir(), "groups.parquet")
	w, err := parquet.Create[blobRow](path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := w.Write(blobRow{Key: "k", Blob: []byte{byte(i)}, Label: int64(i)}); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err == nil {
		t.Error("Flush after Close: no error")
	}
	var groups []int
	for r, err := range parquet.ReadRaw(path).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		groups = append(groups, r.RowGroup)
	}
	if fmt.Sprint(groups) != "[0 0 1 1 2]" {
		t.Errorf("rows in row groups %v, want [0 0 1 1 2]", groups)
	}
}
