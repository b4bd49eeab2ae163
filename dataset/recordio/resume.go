package recordio

import (
	"fmt"
	"hash/fnv"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tensorfeed/tensorfeed/source"
)

// A pass of Records is source.Resumable. Its state after the consumer
// received n records is {recordio(...), [file, offset, n]}: the index of
// the file and the byte offset in it (absolute, also for a Shard) where the
// record after the n-th starts. Resuming from it opens that file, seeks to
// the offset and reads on, so nothing before it is read; Record.Index stays
// counted from the start of the epoch's pass.
//
// The pass remembers where each of its last 4096 records ended, so the
// state is an offset state while the consumer is fewer than 4096 records
// behind the reader, as it is behind any prefetch buffer or parallel map
// of a usual size. Further behind, or for a pass that stopped before
// record n, the state is {recordio(...), [n]}, which resumes by replay:
// the pass is read from its start and its first n records dropped. Both
// are exact.

// start is where the passes of a reader begin: at the start (from a replay
// state, dropping the first skip records) or, with exact, at byte off of
// file, after the first n records of the epoch's pass.
type start struct {
	exact bool
	file  int
	off   int64
	n     int64
	skip  int64
}

// low is the first count a pass from s puts in its ring: a fresh pass
// knows where it is only after its first record.
func (s start) low() int64 {
	if s.exact {
		return s.n
	}
	return 1
}

// kind names the reader in its states: the number of files, a hash of
// their base names (so that a state of another file set is refused, while
// the files may move to another directory or bucket) and its shard.
func (fs *files) kind() string {
	h := fnv.New32a()
	for _, p := range fs.paths {
		h.Write([]byte(path.Base(strings.ReplaceAll(p, `\`, "/"))))
		h.Write([]byte{0})
	}
	k := fmt.Sprintf("recordio(files=%d,names=%08x", len(fs.paths), h.Sum32())
	if fs.c.count > 1 {
		k += fmt.Sprintf(",shard=%d/%d", fs.c.index, fs.c.count)
	}
	return k + ")"
}

// StateAt returns the state of the pass of epoch after its consumer
// received n records: {kind, [file, offset, n]} where the pass still
// remembers where record n ended, else the replay state {kind, [n]}. It
// reads nothing.
func (fs *files) StateAt(epoch int, n int64) (source.State, error) {
	if n < 0 {
		return source.State{}, fmt.Errorf("recordio: state after %d records: negative count", n)
	}
	abs := fs.from.n + fs.from.skip + n
	var pos [1]int64
	if fs.marks.at(epoch, abs, pos[:]) {
		file, off := unpack(pos[0])
		return source.State{Kind: fs.kind(), Pos: []int64{file, off, abs}}, nil
	}
	return source.State{Kind: fs.kind(), Pos: []int64{abs}}, nil
}

// Resume returns a reader whose passes continue the pass st was taken
// from: at its file and offset, or by replay from a replay state. A state
// of another reader (other files, another shard) is an error wrapping
// source.ErrState.
func (fs *files) Resume(st source.State) (source.Reader[Record], error) {
	kind := fs.kind()
	if len(st.Pos) == 1 {
		if err := st.Check(kind, 1, 0); err != nil {
			return nil, err
		}
		return newFiles(fs.paths, fs.c, start{skip: st.Pos[0]}), nil
	}
	if err := st.Check(kind, 3, 0); err != nil {
		return nil, err
	}
	if st.Pos[0] >= int64(len(fs.paths)) {
		return nil, &source.StateError{Want: kind, Got: st, Why: fmt.Sprintf("file %d of %d", st.Pos[0], len(fs.paths))}
	}
	return newFiles(fs.paths, fs.c, start{exact: true, file: int(st.Pos[0]), off: st.Pos[1], n: st.Pos[2]}), nil
}

var _ source.Resumable[Record] = (*files)(nil)

// The ring of record ends. A pass writes, for each record it has read,
// where the record after it starts; a state is computed from that. The
// writes are one atomic store per word (no lock, no allocation), and
// StateAt reads the ring from another goroutine.
const (
	// window is how many of its most recent records a pass always
	// remembers: a state after n records is an offset state when the pass
	// has read at most window records past n, which holds whenever the
	// stages between the reader and the consumer (prefetch buffers,
	// parallel maps) hold fewer than window records.
	window = 4096
	// topEvery is how often (in records) a pass publishes its count: it
	// is never more than topEvery-1 records past what it published.
	topEvery = 256
	ringSize = window + topEvery
	// Each word holds a value and a tag of tagBits that names the ring
	// generation of the record it belongs to (never 0, so that an
	// unwritten word matches no record; adjacent generations differ).
	tagBits  = 6
	tagMask  = 1<<tagBits - 1
	maxValue = 1<<(63-tagBits) - 1
)

func tag(n int64) int64 { return (n/ringSize)%tagMask + 1 }

// marks keeps the rings of the passes of the current and the previous
// epoch.
type marks struct {
	width int // words per record
	mu    sync.Mutex
	rings map[int]*ring
}

// ring is one pass's record ends: the words of slot n%ringSize hold the
// position after the first n records of the pass (counted from the start
// of the epoch's pass, also for a resumed pass).
type ring struct {
	width int
	low   int64        // the first count the pass stores
	top   atomic.Int64 // a count the pass has stored, see topEvery
	vals  []atomic.Int64
}

// start returns a new ring for a pass of epoch, in place of the one of an
// earlier pass of the same epoch, and forgets epochs before the previous.
// low is the first count the pass will put.
func (m *marks) start(epoch int, low int64) *ring {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rings == nil {
		m.rings = map[int]*ring{}
	}
	for e := range m.rings {
		if e < epoch-1 {
			delete(m.rings, e)
		}
	}
	r := &ring{width: m.width, low: low, vals: make([]atomic.Int64, ringSize*m.width)}
	r.top.Store(low)
	m.rings[epoch] = r
	return r
}

// put records the position after the first n records of the pass, n
// counting up by one from low. A value outside [0, maxValue] is not
// recorded: the state after n is then a replay state.
func (r *ring) put(n int64, pos ...int64) {
	t := tag(n)
	s := r.vals[int(n%ringSize)*r.width:][:len(pos)]
	for i, v := range pos {
		w := int64(0)
		if uint64(v) <= maxValue {
			w = v<<tagBits | t
		}
		s[i].Store(w)
	}
	if n%topEvery == 0 {
		r.top.Store(n)
	}
}

// at copies the position after the first n records of the pass of epoch
// into pos and reports whether the ring still held it.
func (m *marks) at(epoch int, n int64, pos []int64) bool {
	m.mu.Lock()
	r := m.rings[epoch]
	m.mu.Unlock()
	if r == nil || n < r.low {
		return false
	}
	t := tag(n)
	s := r.vals[int(n%ringSize)*r.width:][:len(pos)]
	for i := range pos {
		w := s[i].Load()
		if w&tagMask != t {
			return false // not written yet, or overwritten
		}
		pos[i] = w >> tagBits
	}
	// The words belong to record n unless the pass had gone a whole
	// number of generations past it, which it had not if it was less than
	// ringSize records past n when they were read.
	return r.top.Load()+topEvery-1 < n+ringSize
}

// pack puts a small hi (below 2^17) and lo (below 2^40) in one value, or
// gives -1, which put does not record.
func pack(hi, lo int64) int64 {
	if uint64(hi) >= 1<<17 || uint64(lo) >= 1<<40 {
		return -1
	}
	return hi<<40 | lo
}

// unpack is the inverse of pack.
func unpack(v int64) (hi, lo int64) { return v >> 40, v & (1<<40 - 1) }
