package recordio_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// Every record of every test file reads the same by key, by index position
// and by offset as it does sequentially.
func TestIndexedFile(t *testing.T) {
	for _, name := range allRecFiles {
		t.Run(name, func(t *testing.T) {
			payloads, offsets := readAll(t, name, mustRead(t, recPath(name)))
			f, err := recordio.OpenIndexed(recPath(name), "")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Len() != len(payloads) {
				t.Fatalf("Len %d, want %d", f.Len(), len(payloads))
			}
			for i, want := range payloads {
				e := f.Index().Entry(i)
				if e.Offset != offsets[i] {
					t.Fatalf("entry %d offset %d, want %d", i, e.Offset, offsets[i])
				}
				byKey, err1 := f.Key(e.Key)
				nth, err2 := f.Nth(i)
				at, err3 := f.At(offsets[i])
				if err := errors.Join(err1, err2, err3); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if !bytes.Equal(byKey, want) || !bytes.Equal(nth, want) || !bytes.Equal(at, want) {
					t.Errorf("record %d differs: key %d, nth %d, at %d bytes, want %d", i, len(byKey), len(nth), len(at), len(want))
				}
			}
		})
	}
}

// Without an index every part header is read on its own; the result is the same.
func TestRandomReaderWithoutIndex(t *testing.T) {
	file := mustRead(t, recPath("multipart_edge_cases"))
	payloads, offsets := readAll(t, "edge", file)
	rr := recordio.NewRandomReader(bytes.NewReader(file), int64(len(file)), nil)
	for i := len(offsets) - 1; i >= 0; i-- {
		got, err := rr.At(offsets[i])
		if err != nil || !bytes.Equal(got, payloads[i]) {
			t.Errorf("At(%d) = %x, %v; want %x", offsets[i], got, err, payloads[i])
		}
	}
	if _, err := rr.Key(0); !errors.Is(err, recordio.ErrNoKey) {
		t.Errorf("Key without index: %v, want ErrNoKey", err)
	}
}

func TestRandomReaderErrors(t *testing.T) {
	file := mustRead(t, recPath("multipart_edge_cases"))
	f, err := recordio.OpenIndexed(recPath("multipart_edge_cases"), idxPath("multipart_edge_cases"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
		_, err := f.At(c.off)
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || fe.Offset != c.off || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: At(%d): %v, want a tensorfeed.Error at %d saying %q", c.name, c.off, err, c.off, c.msg)
		}
	}
	if _, err := f.Key(99); !errors.Is(err, recordio.ErrNoKey) {
		t.Errorf("Key(99): %v, want ErrNoKey", err)
	}

	// A truncated copy: the last record's data is cut short.
	short := file[:len(file)-8]
	rr := recordio.NewRandomReader(bytes.NewReader(short), int64(len(short)), f.Index())
	rr.Name = "short.rec"
	last := f.Index().Entry(f.Len() - 1)
	_, err = rr.Key(last.Key)
	if !errors.Is(err, recordio.ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "short.rec") {
		t.Errorf("truncated record: %v", err)
	}

	defer func() {
		if recover() == nil {
			t.Error("Nth out of range did not panic")
		}
	}()
	_, _ = f.Nth(f.Len())
}

// An index whose offset points into the middle of a record gives an error,
// not a wrong record.
func TestIndexedFileBadOffset(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "bad.idx")
	if err := os.WriteFile(idx, []byte("0\t0\n1\t20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := recordio.OpenIndexed(recPath("multipart_edge_cases"), idx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Key(1); !errors.Is(err, recordio.ErrFormat) {
		t.Errorf("Key(1) at a bad offset: %v, want ErrFormat", err)
	}
	if got, err := f.Key(0); err != nil || string(got) != "hello" {
		t.Errorf("Key(0) = %q, %v", got, err)
	}
}

func TestOpenIndexedMissing(t *testing.T) {
	if _, err := recordio.OpenIndexed("no/such.rec", ""); err == nil {
		t.Error("no error for a missing index")
	}
	if _, err := recordio.OpenIndexed("no/such.rec", idxPath("multipart_edge_cases")); err == nil {
		t.Error("no error for a missing .rec")
	}
}

// AppendAt reuses the caller's buffer and does not allocate.
func TestAppendAtNoAlloc(t *testing.T) {
	file := mustRead(t, recPath("mnist_t10k_1000_jpg"))
	ix, err := recordio.ReadIndex(idxPath("mnist_t10k_1000_jpg"))
	if err != nil {
		t.Fatal(err)
	}
	rr := recordio.NewRandomReader(bytes.NewReader(file), int64(len(file)), ix)
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
	f, err := recordio.OpenIndexed(recPath(name), "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Go(func() {
			for i := g; i < f.Len(); i += len(errs) {
				got, err := f.Nth(i)
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
