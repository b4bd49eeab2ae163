package marks_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestRing(t *testing.T) {
	m := marks.New(2)
	r := m.Start(0, 5)
	var pos [2]int64
	if m.At(0, 5, pos[:]) {
		t.Fatal("an unwritten slot answered")
	}
	const last = 3 * marks.RingSize
	for n := int64(5); n <= last; n++ {
		r.Put(n, n*10, n*10+1)
	}
	for _, n := range []int64{last, last - marks.Window, last - marks.Window + 1} {
		if !m.At(0, n, pos[:]) || pos != [2]int64{n * 10, n*10 + 1} {
			t.Fatalf("after %d: %v", n, pos)
		}
	}
	for _, n := range []int64{4, 5, last - marks.RingSize, last + 1} {
		if m.At(0, n, pos[:]) {
			t.Fatalf("after %d: answered %v, overwritten or not written", n, pos)
		}
	}
	if m.At(1, last, pos[:]) {
		t.Fatal("an epoch without a pass answered")
	}
	if m.Width() != 2 {
		t.Fatal(m.Width())
	}
}

// A value outside [0, MaxValue] is not recorded.
func TestRingOutOfRange(t *testing.T) {
	m := marks.New(1)
	r := m.Start(0, 1)
	var pos [1]int64
	for n, v := range []int64{-1, marks.MaxValue + 1, marks.MaxValue} {
		r.Put(int64(n+1), v)
		if got := m.At(0, int64(n+1), pos[:]); got != (v == marks.MaxValue) || got && pos[0] != v {
			t.Fatalf("%d: %v %d", v, got, pos[0])
		}
	}
}

// A new pass of an epoch replaces its ring; epochs before the previous are
// forgotten.
func TestRingEpochs(t *testing.T) {
	m := marks.New(1)
	var pos [1]int64
	for e := range 3 {
		m.Start(e, 1).Put(1, int64(e))
	}
	for e, want := range []bool{false, true, true} {
		if m.At(e, 1, pos[:]) != want {
			t.Fatalf("epoch %d: want %v", e, want)
		}
	}
	m.Start(2, 1)
	if m.At(2, 1, pos[:]) {
		t.Fatal("a new pass kept the old one's words")
	}
}

// At runs concurrently with the pass's Put and never gives another
// record's words.
func TestRingConcurrent(t *testing.T) {
	m := marks.New(1)
	r := m.Start(0, 1)
	const last = 20 * marks.RingSize
	var wg sync.WaitGroup
	wg.Go(func() {
		for n := int64(1); n <= last; n++ {
			r.Put(n, n)
		}
	})
	var pos [1]int64
	for n := int64(1); n <= last; n += 7 {
		if m.At(0, n, pos[:]) && pos[0] != n {
			t.Errorf("after %d: %d", n, pos[0])
			break
		}
	}
	wg.Wait()
}

func TestPack(t *testing.T) {
	for _, c := range [][2]int64{{0, 0}, {1<<17 - 1, 1<<40 - 1}, {3, 12345}} {
		if hi, lo := marks.Unpack(marks.Pack(c[0], c[1])); hi != c[0] || lo != c[1] {
			t.Fatalf("%v: %d %d", c, hi, lo)
		}
	}
	for _, c := range [][2]int64{{1 << 17, 0}, {0, 1 << 40}, {-1, 0}, {0, -1}} {
		if marks.Pack(c[0], c[1]) != -1 {
			t.Fatalf("%v packed", c)
		}
	}
}

// A pass puts the position after each record; a state is read from
// another goroutine.
func Example() {
	m := marks.New(1) // one word a record: a file index and an offset
	ring := m.Start(0, 1)
	ends := []int64{120, 260, 310} // where records 1, 2, 3 of file 0 end
	for i, off := range ends {
		ring.Put(int64(i+1), marks.Pack(0, off))
	}
	var w [1]int64
	if m.At(0, 2, w[:]) {
		file, off := marks.Unpack(w[0])
		fmt.Println("after 2 records: file", file, "offset", off)
	}
	fmt.Println("after 9 records known:", m.At(0, 9, w[:]))
	// Output:
	// after 2 records: file 0 offset 260
	// after 9 records known: false
}

func TestFromAndReplay(t *testing.T) {
	if f := (marks.From{Skip: 5}); f.Low() != 1 || f.Count(2) != 7 {
		t.Fatalf("replay: %d %d", f.Low(), f.Count(2))
	}
	if f := (marks.From{Exact: true, N: 9}); f.Low() != 9 || f.Count(2) != 11 {
		t.Fatalf("exact: %d %d", f.Low(), f.Count(2))
	}
	from, ok, err := marks.Replay(source.State{Kind: "k", Pos: []int64{4}}, "k")
	if !ok || err != nil || from != (marks.From{Skip: 4}) {
		t.Fatalf("replay state: %+v %v %v", from, ok, err)
	}
	if _, ok, err := marks.Replay(source.State{Kind: "k", Pos: []int64{4, 5, 6}}, "k"); ok || err != nil {
		t.Fatalf("offset state: %v %v", ok, err)
	}
	if _, _, err := marks.Replay(source.State{Kind: "other", Pos: []int64{4}}, "k"); !errors.Is(err, source.ErrState) {
		t.Fatalf("other kind: %v", err)
	}
}
