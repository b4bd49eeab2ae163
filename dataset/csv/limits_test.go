package csv_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
)

// writeFile writes head, then n copies of fill, then tail, to a new file in
// a temporary directory, without holding the content in memory.
func writeFile(t *testing.T, head, fill string, n int, tail string) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	w.WriteString(head)
	chunk := strings.Repeat(fill, 1<<16/len(fill))
	for k := 0; k < n; {
		m := min(n-k, 1<<16/len(fill))
		w.WriteString(chunk[:m*len(fill)])
		k += m
	}
	w.WriteString(tail)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Size()
}

// readAll reads one pass and returns its rows, its error and the bytes
// allocated while it ran.
func readAll(t *testing.T, r *csv.Reader) (rows int, alloc uint64, err error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, e := range r.All(context.Background()) {
		if e != nil {
			if err != nil {
				t.Fatal("second error")
			}
			err = e
			continue
		}
		rows++
	}
	runtime.ReadMemStats(&after)
	return rows, after.TotalAlloc - before.TotalAlloc, err
}

// A 40 MB line stops the pass with a short positioned error after reading
// a bounded prefix of it: the reader never holds the line.
func TestLongLineBoundedMemory(t *testing.T) {
	const n = 40 << 20
	path, size := writeFile(t, "1,2\n3,4\n", "7", n, "\n5,6\n")
	rows, alloc, err := readAll(t, csv.New(path))
	if rows != 2 {
		t.Errorf("%d rows before the error, want 2", rows)
	}
	var pe *tensorfeed.Error
	if !errors.As(err, &pe) || !errors.Is(err, tensorfeed.ErrBadData) || pe.Path != path || pe.Line != 3 || pe.Column < 2 {
		t.Fatalf("error %.300v: want a *tensorfeed.Error at line 3 wrapping tensorfeed.ErrBadData", err)
	}
	if len(err.Error()) > 300 {
		t.Errorf("error text is %d bytes long", len(err.Error()))
	}
	if alloc > uint64(size)/8 {
		t.Errorf("a pass over a %d-byte line allocated %d bytes", size, alloc)
	}
	t.Logf("default limit: %d bytes allocated", alloc)

	// A lower limit reads less of the line.
	rows, alloc, err = readAll(t, csv.New(path, csv.MaxLineBytes(64<<10)))
	if rows != 2 || !errors.As(err, &pe) || !errors.Is(err, csv.ErrTooLarge) || pe.Line != 3 || pe.Column != 64<<10+1 {
		t.Fatalf("%d rows, error %.300v: want ErrTooLarge at 3:%d", rows, err, 64<<10+1)
	}
	if alloc > 1<<20 {
		t.Errorf("MaxLineBytes(64 KiB): a pass over a %d-byte line allocated %d bytes", size, alloc)
	}
	t.Logf("64 KiB limit: %d bytes allocated", alloc)
}

// A wide row allocates in proportion to its bytes, not to a block of
// rows of its width.
func TestWideRowMemory(t *testing.T) {
	const fields = 128 << 10
	path, size := writeFile(t, "", "1,", fields, "2\n")
	rows, alloc, err := readAll(t, csv.New(path))
	if err != nil || rows != 1 {
		t.Fatalf("%d rows, %v", rows, err)
	}
	if alloc > 48*uint64(size) {
		t.Errorf("a pass over a %d-byte row allocated %d bytes", size, alloc)
	}
	t.Logf("%d bytes allocated", alloc)
}

// A huge bad field is quoted by a short prefix only.
func TestHugeBadFieldShortError(t *testing.T) {
	tests := []struct {
		name string
		head string
		fill string
		opts []csv.Option
	}{
		{"not a number", "1,2\n3,", "x", nil},
		{"out of range", "1,2\n3,", "9", nil},
		{"unknown class", "1,a\n3,", "c", []csv.Option{csv.LabelColumns(csv.Index(1)), csv.Classes("a", "b")}},
		{"string label", "1,2\n3,", "c", []csv.Option{csv.LabelColumns(csv.Index(1))}},
		{"field too long", "1,2\n3,", "5", []csv.Option{csv.MaxFieldBytes(100 << 10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := writeFile(t, tt.head, tt.fill, 200<<10, "\n")
			rows, _, err := readAll(t, csv.New(path, tt.opts...))
			var pe *tensorfeed.Error
			if rows != 1 || !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 3 || pe.Member != "field 2" {
				t.Fatalf("%d rows, error %.300v", rows, err)
			}
			if !errors.Is(err, tensorfeed.ErrBadData) {
				t.Errorf("error %.300v does not wrap tensorfeed.ErrBadData", err)
			}
			if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, tt.fill+tt.fill+tt.fill) || !strings.Contains(msg, "…") {
				t.Errorf("error text %.300q (%d bytes): want a short quoted prefix", msg, len(msg))
			}
		})
	}
}
