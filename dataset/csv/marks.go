package csv

import (
	"sync"
	"sync/atomic"
)

// ringSize is how many recent records a pass remembers the end of: a state
// after n records is an offset state when record n is among the last
// ringSize records the pass has read, which holds whenever the stages
// between the reader and the consumer (prefetch buffers, parallel maps,
// shuffle buffers of records) hold fewer than ringSize records.
const ringSize = 4096

// marks remembers, for the passes of the current and the previous epoch,
// where each of the last ringSize records they yielded ended: the values of
// a position (file index, byte offset, ...) after record n. A pass writes
// its ring without a lock and without allocating (a few atomic stores per
// record); StateAt reads it from another goroutine.
type marks struct {
	width int
	mu    sync.Mutex
	rings map[int]*ring
}

// ring is one pass's record ends: slot n%ringSize holds the position after
// the first n records of the pass (counted from the start of the epoch's
// pass, also for a resumed pass).
type ring struct {
	width int
	low   int64        // the first count the pass stores
	top   atomic.Int64 // the highest count stored, -1 before any
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
	r.top.Store(-1)
	m.rings[epoch] = r
	return r
}

// put records the position after the first n records of the pass.
func (r *ring) put(n int64, pos ...int64) {
	s := r.vals[int(n%ringSize)*r.width:][:len(pos)]
	for i, v := range pos {
		s[i].Store(v)
	}
	r.top.Store(n)
}

// at copies the position after the first n records of the pass of epoch
// into pos and reports whether the ring still held it.
func (m *marks) at(epoch int, n int64, pos []int64) bool {
	m.mu.Lock()
	r := m.rings[epoch]
	m.mu.Unlock()
	if r == nil {
		return false
	}
	top := r.top.Load()
	if n < r.low || n > top || n <= top-ringSize+1 {
		return false
	}
	s := r.vals[int(n%ringSize)*r.width:][:len(pos)]
	for i := range pos {
		pos[i] = s[i].Load()
	}
	// A writer that went on meanwhile may have overwritten the slot.
	return n > r.top.Load()-ringSize+1
}
