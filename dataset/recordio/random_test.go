package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
)

// Every record of every test file reads the same by key, by index position
// (of an Indexed) and by offset as it does
// sequentially.
func TestIndexedFile(t *testing.T) {
	for _, name := range allRecFiles {
		t.Run(name, func(t *testing.T) {
			payloads, offsets := readAll(t, name, mustRead(t, recPath(name)))
			x, err := recordio.OpenIndexed(context.Background(), recPath(name))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			f, ix := openRandom(t, recPath(name), idxPath(name))
			if ix.Len() != len(payloads) || x.Len() != len(payloads) {
				t.Fatalf("Len %d and %d, want %d", ix.Len(), x.Len(), len(payloads))
			}
			for i, want := range payloads {
				e := ix.Entry(i)
				if e.Offset != offsets[i] {
					t.Fatalf("entry %d offset %d, want %d", i, e.Offset, offsets[i])
				}
				byKey, err1 := byKey(f, ix, e.Key)
				nth, err2 := f.AppendAt(nil, e.Offset)
				at, err3 := f.AppendAt(nil, offsets[i])
				got, err4 := x.Get(i)
				if err := errors.Join(err1, err2, err3, err4); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if !bytes.Equal(byKey, want) || !bytes.Equal(nth, want) || !bytes.Equal(at, want) || !bytes.Equal(got, want) {
					t.Errorf("record %d differs: key %d, nth %d, at %d, Indexed %d bytes, want %d", i, len(byKey), len(nth), len(at), len(got), len(want))
				}
				if file, j, key := x.Locate(i); file != recPath(name) || j != i || key != e.Key {
					t.Errorf("Locate(%d) = %s, %d, %d", i, file, j, key)
				}
			}
		})
	}
}

// Without an index every part header is read on its own; the result is the same.
func TestRandomReaderWithoutIndex(t *testing.T) {
	file := mustRead(t, recPath("multipart_edge_cases"))
	payloads, offsets := readAll(t, "edge", file)
	rr := recordio.NewRandomReader("", bytes.NewReader(file), int64(len(file)), nil)
	for i := len(offsets) - 1; i >= 0; i-- {
		got, err := rr.AppendAt(nil, offsets[i])
		if err != nil || !bytes.Equal(got, payloads[i]) {
			t.Errorf("At(%d) = %x, %v; want %x", offsets[i], got, err, payloads[i])
		}
	}
}

func TestRandomReaderErrors(t *testing.T) {
	file := mustRead(t, recPath("multipart_edge_cases"))
	f, ix := openRandom(t, recPath("multipart_edge_cases"), idxPath("multipart_edge_cases"))
	cases := []struct {
		name string
		off  int64
		msg  string
	}{
		{"continuation part", 32, "not a record start: continuation part (flag 3)"},
		{"inside data", 8, "bad magic"},
		{"at end", int64(len(file)), "at or past the end"},
		{"past end", int64(len(file)) + 100, "at or past the end"},
	}
	for _, c := range cases {
		_, err := f.AppendAt(nil, c.off)
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || fe.Offset != c.off || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: At(%d): %v, want a tensorfeed.Error at %d saying %q", c.name, c.off, err, c.off, c.msg)
		}
	}

	// A truncated copy: the last record's data is cut short.
	short := file[:len(file)-8]
	rr := recordio.NewRandomReader("short.rec", bytes.NewReader(short), int64(len(short)), ix)
	last := ix.Entry(ix.Len() - 1)
	_, err := byKey(rr, ix, last.Key)
	if !errors.Is(err, recordio.ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "short.rec") {
		t.Errorf("truncated record: %v", err)
	}

	x, err := recordio.OpenIndexed(context.Background(), recPath("multipart_edge_cases"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, i := range []int{x.Len(), -1} {
		if _, err := x.Get(i); !errors.Is(err, source.ErrIndex) {
			t.Errorf("Get(%d) of %d records: %v, want ErrIndex", i, x.Len(), err)
		}
	}
}

// An index whose offset points into the middle of a record gives an error,
// not a wrong record.
func TestIndexedFileBadOffset(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "bad.idx")
	if err := os.WriteFile(idx, []byte("0\t0\n1\t20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := recordio.OpenIndexed(context.Background(), withIndex(t, recPath("multipart_edge_cases"), idx))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Get(1); !errors.Is(err, recordio.ErrFormat) {
		t.Errorf("Get(1) at a bad offset: %v, want ErrFormat", err)
	}
	if got, err := f.Get(0); err != nil || string(got) != "hello" {
		t.Errorf("Get(0) = %q, %v", got, err)
	}
}

func TestOpenIndexedMissing(t *testing.T) {
	if _, err := recordio.OpenIndexed(context.Background(), "no/such.rec"); err == nil {
		t.Error("no error for a missing index")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "such.idx"), mustRead(t, idxPath("multipart_edge_cases")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := recordio.OpenIndexed(context.Background(), filepath.Join(dir, "such.rec")); err == nil {
		t.Error("no error for a missing .rec")
	}
}

// AppendAt reuses the caller's buffer and does not allocate.
func TestAppendAtNoAlloc(t *testing.T) {
	file := mustRead(t, recPath("mnist_t10k_1000_jpg"))
	ix, err := recordio.ReadIndex(context.Background(), idxPath("mnist_t10k_1000_jpg"))
	if err != nil {
		t.Fatal(err)
	}
	rr := recordio.NewRandomReader("", bytes.NewReader(file), int64(len(file)), ix)
	buf := make([]byte, 0, 64<<10)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = rr.AppendAt(buf[:0], ix.Entry(7).Offset); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per AppendAt, want 0", allocs)
	}
}

// A RandomReader over an *os.File serves concurrent readers.
func TestRandomReaderConcurrent(t *testing.T) {
	name := "mnist_t10k_1000_png_gray"
	payloads, _ := readAll(t, name, mustRead(t, recPath(name)))
	f, err := recordio.OpenIndexed(context.Background(), recPath(name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Go(func() {
			for i := g; i < f.Len(); i += len(errs) {
				got, err := f.Get(i)
				if err == nil && !bytes.Equal(got, payloads[i]) {
					err = errors.New("wrong payload")
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
