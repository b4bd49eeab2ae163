package mxnet

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// recordBufs recycles the bytes of records between the step that reads
// them and the fill that decodes them: a record's bytes are dead once its
// image is in its row, so a pass of images of similar sizes reads into
// the same few hundred buffers instead of allocating (and the kernel
// faulting in) about as many bytes as the file holds, every pass.
//
// Buffers are kept by size class, powers of two, so a buffer fits every
// record of its class; at most maxIdleRecordBytes are kept idle.
type recordBufs struct {
	mu    sync.Mutex
	free  [bits.UintSize][][]byte // by class: cap 1<<class
	bytes int                     // idle bytes in free
	made  atomic.Int64            // buffers allocated by get, for tests
}

const maxIdleRecordBytes = 32 << 20

// sizeClass is the class of a buffer of n bytes: the least c with
// 1<<c >= n.
func sizeClass(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

// get returns a buffer of length n: an idle one of n's class or a new
// one.
func (p *recordBufs) get(n int) []byte {
	c := sizeClass(n)
	p.mu.Lock()
	if k := len(p.free[c]); k > 0 {
		b := p.free[c][k-1]
		p.free[c][k-1] = nil
		p.free[c] = p.free[c][:k-1]
		p.bytes -= cap(b)
		p.mu.Unlock()
		return b[:n]
	}
	p.mu.Unlock()
	p.made.Add(1)
	return make([]byte, n, 1<<c)
}

// put keeps b for a later get, unless it is not a whole class's buffer
// (a record's bytes that did not come from get) or the idle bound is
// reached.
func (p *recordBufs) put(b []byte) {
	c := cap(b)
	if c == 0 || c&(c-1) != 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes+c > maxIdleRecordBytes {
		return
	}
	class := sizeClass(c)
	p.free[class] = append(p.free[class], b[:0])
	p.bytes += c
}
