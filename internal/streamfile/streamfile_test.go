package streamfile_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/streamfile"
	"github.com/tensorfeed/tensorfeed/source"
)

// A pass counts its records, remembers where each ended, and a state
// taken of it resumes exactly: by offset while the pass remembers the
// record, by replay (dropping the first records) otherwise.
func TestStreamStateResume(t *testing.T) {
	s := streamfile.New("fmt", "records", "fmt(x)", 1)
	p := s.Start(context.Background())
	for i := range 5 {
		if !p.Good(int64(10 * (i + 1))) {
			t.Fatalf("record %d dropped by a fresh pass", i)
		}
	}
	pos := func(abs int64, w []int64) []int64 { return []int64{w[0], abs} }
	st, err := s.StateAt(0, 3, pos)
	if err != nil || st.Kind != "fmt(x)" || !slices.Equal(st.Pos, []int64{30, 3}) {
		t.Fatalf("StateAt(0, 3) = %v, %v; want {fmt(x) [30 3]}", st, err)
	}
	if st, _ := s.StateAt(0, 7, pos); !slices.Equal(st.Pos, []int64{7}) {
		t.Errorf("state after a record not read = %v; want the replay state [7]", st.Pos)
	}
	if _, err := s.StateAt(0, -1, pos); err == nil {
		t.Error("a negative count gave no error")
	}

	r, err := s.Resume(st, 1, 2)
	if err != nil || !r.From.Exact || r.From.N != 3 || !slices.Equal(r.At, []int64{30, 3}) {
		t.Fatalf("Resume(%v) = %+v, %v; want exact from 3 at [30 3]", st, r, err)
	}
	rp := r.Start(context.Background())
	if rp.N != 3 {
		t.Errorf("resumed pass counts from %d; want 3", rp.N)
	}
	refused := r.Refuse("pos[0]", "past the end")
	var se *source.StateError
	if !errors.As(refused, &se) || se.Field != "pos[0]" || !slices.Equal(se.Got.Pos, []int64{30, 3}) {
		t.Errorf("Refuse = %v; want a StateError naming pos[0] of [30 3]", refused)
	}

	rr, err := s.Resume(source.State{Kind: "fmt(x)", Pos: []int64{2}}, 1, 2)
	if err != nil || rr.From.Exact {
		t.Fatalf("Resume(replay) = %+v, %v", rr, err)
	}
	q := rr.Start(context.Background())
	var got []bool
	for range 4 {
		got = append(got, q.Good(0))
	}
	if !slices.Equal(got, []bool{false, false, true, true}) {
		t.Errorf("a replay of 2 delivers %v; want the first two dropped", got)
	}

	for _, bad := range []source.State{
		{Kind: "other", Pos: []int64{1, 2}},
		{Kind: "fmt(x)", Pos: []int64{1, 2, 3}},
		{Kind: "fmt(x)", Pos: []int64{-1, 2}},
	} {
		if _, err := s.Resume(bad, 1, 2); !errors.Is(err, source.ErrState) {
			t.Errorf("Resume(%v) = %v; want source.ErrState", bad, err)
		}
	}
}

// A cancelled pass stops at the next record.
func TestPassStopped(t *testing.T) {
	s := streamfile.New("fmt", "records", "fmt(x)", 1)
	ctx, cancel := context.WithCancel(context.Background())
	p := s.Start(ctx)
	if err := p.Stopped(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := p.Stopped(); !errors.Is(err, context.Canceled) {
		t.Errorf("Stopped after cancel = %v", err)
	}
}

// The name hashes are those of the states written before the core: FNV-1a
// of the base names, a 0 byte after each name of a list.
func TestHashes(t *testing.T) {
	h := fnv.New32a()
	h.Write([]byte("b.rec"))
	if got, want := streamfile.NameHash(filepath.Join("dir", "b.rec")), h.Sum32(); got != sprintf(want) {
		t.Errorf("NameHash = %s; want %s", got, sprintf(want))
	}
	h.Reset()
	for _, n := range []string{"a.tar", "b.tar"} {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	if n, got := streamfile.ListHash("x/a.tar;s3://bucket/b.tar"); n != 2 || got != sprintf(h.Sum32()) {
		t.Errorf("ListHash = %d, %s; want 2, %s", n, got, sprintf(h.Sum32()))
	}
}

func sprintf(h uint32) string { return fmt.Sprintf("%08x", h) }

// A list reader resumed in file 1 at an offset skips file 0, starts file 1
// at the offset and every later file at its start.
func TestStartIn(t *testing.T) {
	s := streamfile.New("fmt", "records", "fmt(x)", 1)
	if off, exact, read := s.StartIn(3); off != 0 || exact || !read {
		t.Errorf("fresh StartIn(3) = %d, %v, %v; want 0, false, true", off, exact, read)
	}
	r, err := s.Resume(source.State{Kind: "fmt(x)", Pos: []int64{1, 512, 9}}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		off         int64
		exact, read bool
	}{{0, false, false}, {512, true, true}, {0, false, true}} {
		if off, exact, read := r.StartIn(i); off != want.off || exact != want.exact || read != want.read {
			t.Errorf("StartIn(%d) = %d, %v, %v; want %+v", i, off, exact, read, want)
		}
	}
}

// AppendN reads what the input holds, and a length far past it does not
// allocate its size.
func TestAppendN(t *testing.T) {
	buf, err := streamfile.AppendN(strings.NewReader("abcdef"), []byte("x"), 4, 2)
	if err != nil || string(buf) != "xabcd" {
		t.Errorf("AppendN = %q, %v; want xabcd", buf, err)
	}
	buf, err = streamfile.AppendN(strings.NewReader("abc"), nil, 1<<30, 64<<10)
	if !errors.Is(err, io.ErrUnexpectedEOF) || string(buf) != "abc" || cap(buf) > 1<<20 {
		t.Errorf("AppendN past the end = %q (cap %d), %v; want abc, io.ErrUnexpectedEOF and a small buffer", buf, cap(buf), err)
	}
	br := bufio.NewReader(strings.NewReader(""))
	if streamfile.Buffered(br) != br {
		t.Error("Buffered wrapped a *bufio.Reader again")
	}
}

// Only an error of bad data that is not structural is about one record.
func TestOneRecord(t *testing.T) {
	bad, framing := errors.New("bad"), errors.New("framing")
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("row: %w", bad), true},
		{fmt.Errorf("%w: %w", bad, framing), false},
		{framing, false},
		{io.ErrUnexpectedEOF, false},
	} {
		if got := streamfile.OneRecord(c.err, bad, framing); got != c.want {
			t.Errorf("OneRecord(%v) = %v; want %v", c.err, got, c.want)
		}
	}
}
