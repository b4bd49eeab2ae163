package batch

import (
	"sync"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

type config struct {
	recycle bool
}

// Option changes how Of and OfFill build batches.
type Option = option.Option[config]

// Recycling makes Of and OfFill reuse the Samples slices that consumers
// hand back with Batch.Release, instead of allocating a new slice for every
// batch. It is opt-in because it changes who owns a batch:
//
//   - A batch belongs to its consumer until the consumer calls Release.
//     After that the batch must not be used: its Samples slice will hold a
//     later batch.
//   - Each batch must be recycled at most once, by its last consumer.
//     pipeline.Tensorize and pipeline.PadSeqs recycle every batch as soon as they
//     have copied it; a consumer that ranges over the batches itself calls
//     b.Release() when it is done with b.Samples.
//   - A batch that is never recycled is simply left to the garbage
//     collector, so forgetting Release costs an allocation, never
//     correctness.
//
// Because a batch is handed back explicitly, recycling is safe across
// goroutines: a prefetching stage (pipeline's Buffered) may hold several
// batches at once, and the reader then keeps as many slices as are in
// flight. It is not safe with a stage that keeps batches after passing
// them on (stage.Cache) or hands the same batch to two consumers (a tee):
// the first consumer's Release would let a later batch overwrite what the
// other still reads.
//
// The free list belongs to the reader Of returns and is shared by its
// passes, so later epochs allocate no slices at all. In steady state a
// recycling Of allocates nothing per batch.
func Recycling() Option { return option.New(func(c *config) { c.recycle = true }) }

// Release hands the batch's Samples slice back to the reader that made it,
// when that reader was built with Recycling; otherwise it does nothing. See
// Recycling for what the caller gives up. Releasing a batch twice (or a
// copy of a batch already released) panics: two later batches would share
// memory.
func (b Batch[T]) Release() {
	s := b.slot
	if s == nil {
		return
	}
	p := s.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.free || s.gen != b.gen {
		panic("batch: Release of a batch that was already released")
	}
	s.free = true
	p.free = append(p.free, s)
}

// slot is one Samples slice of a recycling reader. gen counts its uses, so
// that Release can tell the batch that holds it now from an older one.
type slot[T any] struct {
	pool *pool[T]
	buf  []T
	gen  uint64
	free bool
}

// pool is the free list of a recycling reader.
type pool[T any] struct {
	mu   sync.Mutex
	free []*slot[T]
}

// get returns a slot whose buf is empty, reusing a free one when there is
// one; size is the capacity of a new slot.
func (p *pool[T]) get(size int) *slot[T] {
	p.mu.Lock()
	if k := len(p.free); k > 0 {
		s := p.free[k-1]
		p.free[k-1] = nil
		p.free = p.free[:k-1]
		s.free = false
		s.gen++
		p.mu.Unlock()
		s.buf = s.buf[:0]
		return s
	}
	p.mu.Unlock()
	return &slot[T]{pool: p, buf: make([]T, 0, size)}
}

// put returns a slot that a pass took but never yielded.
func (p *pool[T]) put(s *slot[T]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.free = true
	p.free = append(p.free, s)
}
