// Package marks is the ring of record ends that makes the streaming readers
// (CSV, RecordIO, TFRecord, WebDataset) resumable at a byte offset.
//
// A pass writes, for each record it has read, where the record after it
// starts (a few int64 words: an offset, a file index, a line count); the
// reader's StateAt turns the words stored after the consumer's n-th record
// into an offset state. StateAt runs on another goroutine than the pass, so
// the words are atomics, and a pass pays one atomic store per word and
// record: no lock, no allocation.
//
// # Why a ring, and its bound
//
// The consumer is never far behind the reader: only the records held by the
// stages between them (prefetch buffers, parallel maps) separate the two.
// So a pass keeps only its most recent records, in a ring of [RingSize]
// slots, and always remembers at least the last [Window] of them. A state
// asked for a record the ring no longer holds (or for a record the pass has
// not read) is not an offset state: the reader gives its replay state
// instead, which is exact too. The memory of a pass is RingSize x width
// words, whatever the size of the data.
//
// # Tags
//
// Slot n%RingSize is reused by every record n of the same residue, so each
// word carries, below its value, a tag of [TagBits] bits that names the
// ring generation n/RingSize of the record that wrote it (never 0, so that
// an unwritten word matches no record; adjacent generations differ). A
// word whose tag is not the one of record n belongs to another record. A
// tag repeats every 63 generations, so [Marks.At] also checks that the pass
// was less than a whole ring past n when the words were read: the pass
// publishes its count every [TopEvery] records (one more atomic store, in
// 1 of TopEvery records), and At accepts the words only if that count plus
// TopEvery-1 is below n+RingSize. A value must fit in the [MaxValue] bits
// left to it; [Pack] puts two small values in one word.
package marks

import (
	"sync"
	"sync/atomic"

	"github.com/tensorfeed/tensorfeed/source"
)

const (
	// Window is how many of its most recent records a pass always
	// remembers: a state after n records is an offset state when the pass
	// has read at most Window records past n, which holds whenever the
	// stages between the reader and the consumer hold fewer than Window
	// records.
	Window = 4096
	// TopEvery is how often (in records) a pass publishes its count: it
	// is never more than TopEvery-1 records past what it published.
	TopEvery = 256
	// RingSize is the number of slots of a ring: the most records a pass
	// remembers the ends of.
	RingSize = Window + TopEvery
	// TagBits is the width of the generation tag of every word.
	TagBits = 6
	tagMask = 1<<TagBits - 1
	// MaxValue is the largest value a word holds; Put does not record a
	// larger one (nor a negative one).
	MaxValue = 1<<(63-TagBits) - 1
)

func tag(n int64) int64 { return (n/RingSize)%tagMask + 1 }

// Marks keeps the rings of a reader's passes of the current and the
// previous epoch. It is safe for concurrent use.
type Marks struct {
	width int // words per record
	mu    sync.Mutex
	rings map[int]*Ring
}

// New returns the marks of a reader that stores width words per record.
// It panics when width < 1.
func New(width int) *Marks {
	if width < 1 {
		panic("marks: New: width must be at least 1")
	}
	return &Marks{width: width}
}

// Width returns the number of words per record.
func (m *Marks) Width() int { return m.width }

// Ring is one pass's record ends: the words of slot n%RingSize hold the
// position after the first n records of the pass (counted from the start
// of the epoch's pass, also for a resumed pass). One goroutine, the pass's,
// writes it.
type Ring struct {
	width int
	low   int64        // the first count the pass stores
	top   atomic.Int64 // a count the pass has stored, see TopEvery
	vals  []atomic.Int64
}

// Start returns a new ring for a pass of epoch, in place of the one of an
// earlier pass of the same epoch, and forgets epochs before the previous.
// low is the first count the pass will put.
func (m *Marks) Start(epoch int, low int64) *Ring {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rings == nil {
		m.rings = map[int]*Ring{}
	}
	for e := range m.rings {
		if e < epoch-1 {
			delete(m.rings, e)
		}
	}
	r := &Ring{width: m.width, low: low, vals: make([]atomic.Int64, RingSize*m.width)}
	r.top.Store(low)
	m.rings[epoch] = r
	return r
}

// Put records the position after the first n records of the pass, n
// counting up by one from low: at most Width words. A value outside [0,
// MaxValue] is not recorded: the state after n is then a replay state.
func (r *Ring) Put(n int64, pos ...int64) {
	t := tag(n)
	s := r.vals[int(n%RingSize)*r.width:][:len(pos)]
	for i, v := range pos {
		w := int64(0)
		if uint64(v) <= MaxValue {
			w = v<<TagBits | t
		}
		s[i].Store(w)
	}
	if n%TopEvery == 0 {
		r.top.Store(n)
	}
}

// At copies the position after the first n records of the pass of epoch
// into pos (at most Width words) and reports whether the ring still held
// it.
func (m *Marks) At(epoch int, n int64, pos []int64) bool {
	m.mu.Lock()
	r := m.rings[epoch]
	m.mu.Unlock()
	if r == nil || n < r.low {
		return false
	}
	t := tag(n)
	s := r.vals[int(n%RingSize)*r.width:][:len(pos)]
	for i := range pos {
		w := s[i].Load()
		if w&tagMask != t {
			return false // not written yet, or overwritten
		}
		pos[i] = w >> TagBits
	}
	// The words belong to record n unless the pass had gone a whole
	// number of generations past it, which it had not if it was less than
	// RingSize records past n when they were read.
	return r.top.Load()+TopEvery-1 < n+RingSize
}

// Pack puts a small hi (below 2^17) and lo (below 2^40: a byte offset in a
// file under 1 TiB) in one value, or gives -1, which Put does not record.
func Pack(hi, lo int64) int64 {
	if uint64(hi) >= 1<<17 || uint64(lo) >= 1<<40 {
		return -1
	}
	return hi<<40 | lo
}

// Unpack is the inverse of Pack.
func Unpack(v int64) (hi, lo int64) { return v >> 40, v & (1<<40 - 1) }

// From is where the passes of a resumable reader begin: at the start of
// the epoch's pass, dropping its first Skip records (a replay state), or,
// with Exact, after its first N records, at a position the reader keeps
// beside it (a file, a byte offset).
type From struct {
	Exact bool
	N     int64 // records of the epoch's pass before an exact start
	Skip  int64 // records a replay drops
}

// Low is the first count a pass from f puts in its ring: a fresh pass
// knows where it is only after its first record.
func (f From) Low() int64 {
	if f.Exact {
		return f.N
	}
	return 1
}

// Count returns the count from the start of the epoch's pass after the
// consumer of a pass from f received n records.
func (f From) Count(n int64) int64 { return f.N + f.Skip + n }

// Replay reports whether st is a replay state {kind, [n]} (one counter),
// and for one returns its From, or the error of st.Check. A state with
// more counters is an offset state, for the reader to check.
func Replay(st source.State, kind string) (from From, ok bool, err error) {
	if len(st.Pos) != 1 {
		return From{}, false, nil
	}
	if err := st.Check(kind, 1, 0); err != nil {
		return From{}, true, err
	}
	return From{Skip: st.Pos[0]}, true, nil
}
