package batch

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/tensorfeed/tensorfeed/internal/option"

	"github.com/tensorfeed/tensorfeed/source"
)

// Of returns a reader that groups the samples of r into batches of size
// samples, in order. What happens to a short last batch depends on last
// (see Policy). Size 0 makes every pass one batch holding all its samples;
// last then has no effect. An empty pass yields no batch.
//
// Every batch owns a new Samples slice (capacity size); Of allocates
// nothing else per batch and nothing per sample, except that Pad keeps a
// copy of the first batch of each pass to pad the last one from. With the
// Recycling option, Of instead reuses the slices of batches that consumers
// hand back with Batch.Release and, in steady state, allocates nothing per
// batch.
//
// An error from r is yielded once, with the zero Batch, and ends the pass;
// the samples of the unfinished batch are dropped.
//
// # RollOver
//
// With RollOver the reader keeps state between passes. A pass yields only
// full batches; the samples left at its end (fewer than size) are kept and
// become the first samples of the next pass, so a pass may also end with no
// batch at all when the carry and the new samples together are still fewer
// than size.
//
// At the end of the last epoch the remainder stays in the reader and is
// never yielded: a run of any number of epochs loses at most size-1
// samples, as with MXNet's roll_over. Use Keep or Pad for a pass where every
// sample must be seen, such as evaluation.
//
// A pass that stops early (break, error, cancellation) keeps no remainder:
// the samples of its unfinished batch are dropped, and so is the carry it
// took when it started.
//
// Passes may run concurrently: a pass takes the whole carry when it starts
// (so two passes never yield the same carried sample) and appends its
// remainder to the carry when it ends. Which pass receives which remainder
// then depends on timing, so concurrent passes of a RollOver reader are not
// deterministic.
//
// The carried samples are data: Batch.Padded stays 0 and Batch.Carried
// counts them, which is the number MXNet's NDArrayIter reports as pad for
// the first batch of an epoch under roll_over.
//
// # RoundBatch
//
// With RoundBatch the short last batch of a pass is filled with the first
// samples r yields in that pass (cyclically when the pass has fewer samples
// than the padding needs), Batch.Padded counts them, and the reader
// remembers how many it took: the next pass skips that many samples (modulo
// the length of the pass) from the start of r and goes on after them, as
// MXNet's round_batch does. Every batch is full, and over consecutive
// epochs every sample is used in turn. MXNet starts the next epoch of its
// source to pad; Of pads from the start of the current pass instead, which
// is the same samples when r yields the same order every pass. When r
// shuffles every epoch, the next pass skips the first samples of its own
// order. A pass that stops early leaves no skip for the next one, and
// concurrent passes share the skip as they share the RollOver carry.
//
// Of panics when size < 0 or last is not a known Policy.
func Of[T any](r source.Reader[T], size int, last Policy, opts ...Option) source.Reader[Batch[T]] {
	if size < 0 {
		panic(fmt.Sprintf("batch: Of: negative size %d", size))
	}
	p := newPool[T](opts)
	switch last {
	case Keep, Drop, Pad:
		return newOf(r, size, last, nil, p)
	case RollOver:
		return newRollOver(r, size, p)
	case RoundBatch:
		if size == 0 {
			return Of(r, 0, Keep, opts...)
		}
		return newRoundBatch(r, size, p)
	}
	panic(fmt.Sprintf("batch: Of: unknown policy %v", last))
}

// OfFill is Of with a short last batch padded to size with copies of fill;
// Batch.Padded counts them. Size 0 makes every pass one batch and then
// nothing is padded. It takes the same options as Of. OfFill panics when
// size < 0.
func OfFill[T any](r source.Reader[T], size int, fill T, opts ...Option) source.Reader[Batch[T]] {
	if size < 0 {
		panic(fmt.Sprintf("batch: OfFill: negative size %d", size))
	}
	return newOf(r, size, Pad, &fill, newPool[T](opts))
}

// ofReader is a batching reader with policy Keep, Drop or Pad. It is
// Resumable: after n batches its upstream is after n*size samples.
type ofReader[T any] struct {
	r    source.Reader[T]
	size int
	last Policy
	fill *T
	pool *pool[T]
	// A resumed reader: done batches were yielded before it, and head is
	// the pass from its start, for the first samples that Pad repeats.
	done int64
	head source.Reader[T]
}

func newOf[T any](r source.Reader[T], size int, last Policy, fill *T, p *pool[T]) source.Reader[Batch[T]] {
	o := &ofReader[T]{r: r, size: size, last: last, fill: fill, pool: p}
	if size == 0 {
		// One batch holds the whole pass, whose length is known only by
		// reading it: a resumed pass replays.
		return source.Replayed(o.kind(), o, r)
	}
	return o
}

func (o *ofReader[T]) All(ctx context.Context) iter.Seq2[Batch[T], error] {
	return pass(ctx, o.r, o.size, o.last, o.fill, nil, o.head, o.pool)
}

func (o *ofReader[T]) kind() string {
	if o.fill != nil {
		return fmt.Sprintf("batch(%d,fill)", o.size)
	}
	return fmt.Sprintf("batch(%d,%v)", o.size, o.last)
}

// StateAt returns {batch(size,policy), upstream's state after n*size
// samples}.
func (o *ofReader[T]) StateAt(epoch int, n int64) (source.State, error) {
	in, err := source.StateOf(o.r, epoch, n*int64(o.size))
	return source.State{Kind: o.kind(), Pos: []int64{o.done + n}, In: []source.State{in}}, err
}

// Resume continues the upstream from st. With Pad, the first samples of
// the pass are read again if the last batch needs them.
func (o *ofReader[T]) Resume(st source.State) (source.Reader[Batch[T]], error) {
	r, err := resumeInput(st, o.kind(), 1, o.r)
	if err != nil {
		return nil, err
	}
	q := *o
	q.r, q.done = r, st.Pos[0]
	if q.head == nil && q.done > 0 && o.last == Pad && o.fill == nil {
		q.head = o.r
	}
	return &q, nil
}

// newPool returns the free list of a reader built with opts, or nil when
// it does not recycle.
func newPool[T any](opts []Option) *pool[T] {
	var c config
	option.Apply(&c, opts)
	if !c.recycle {
		return nil
	}
	return &pool[T]{}
}

// carry holds the samples a RollOver reader keeps between passes.
type carry[T any] struct {
	mu   sync.Mutex
	left []T
}

func (c *carry[T]) take() []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.left
	c.left = nil
	return s
}

func (c *carry[T]) put(s []T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left == nil {
		c.left = s
		return
	}
	c.left = append(c.left, s...)
}

// pass builds one pass of a batching reader. fill, when not nil, pads the
// last batch with its value (policy Pad); ro, when not nil, carries the
// remainder between passes (policy RollOver); p, when not nil, recycles
// Samples slices (option Recycling).
//
// headOf, when not nil, is the pass from its start for a pass that resumes
// part way: Pad reads its first samples from it.
func pass[T any](ctx context.Context, r source.Reader[T], size int, last Policy, fill *T, ro *carry[T], headOf source.Reader[T], p *pool[T]) iter.Seq2[Batch[T], error] {
	return func(yield func(Batch[T], error) bool) {
		bt := batcher[T]{size: size, last: last, fill: fill, pool: p}
		defer bt.abandon()
		if ro != nil {
			left := ro.take()
			bt.carried = len(left)
			for _, s := range left {
				if !bt.push(s, yield) {
					return
				}
			}
		}
		for s, err := range r.All(ctx) {
			if err != nil {
				yield(Batch[T]{}, err)
				return
			}
			if !bt.push(s, yield) {
				return
			}
		}
		n := len(bt.buf)
		if n == 0 {
			return
		}
		switch {
		case size == 0 || last == Keep:
		case last == Drop:
			return
		case last == RollOver:
			ro.put(bt.buf)
			bt.cur = nil // the carry keeps buf's memory; the slot is not reused
			return
		case fill != nil:
			for len(bt.buf) < size {
				bt.buf = append(bt.buf, *fill)
			}
		default: // Pad with the first samples of the pass
			head := bt.head
			if headOf != nil { // a resumed pass: its head is not the pass's

				var err error
				if head, err = firstN(ctx, headOf, size); err != nil {
					yield(Batch[T]{}, err)
					return
				}
			}
			if head == nil {
				head = bt.buf[:n] // the pass is shorter than one batch
			}
			for i := 0; len(bt.buf) < size; i++ {
				bt.buf = append(bt.buf, head[i%len(head)])
			}
		}
		yield(bt.done(len(bt.buf)-n), nil)
	}
}

// batcher is the state of one pass of a batching reader.
type batcher[T any] struct {
	size int
	last Policy
	fill *T
	pool *pool[T] // nil unless recycling
	buf  []T      // the batch being filled; nil until its first sample
	cur  *slot[T] // buf's slot when recycling
	head []T      // the first full batch of the pass, for Pad
	// carried is the number of carried samples not yet in a yielded batch.
	carried int
}

// push adds s to the batch and yields the batch when it is full; it
// reports whether the pass goes on.
func (bt *batcher[T]) push(s T, yield func(Batch[T], error) bool) bool {
	if bt.buf == nil {
		switch {
		case bt.pool != nil:
			bt.cur = bt.pool.get(bt.size)
			bt.buf = bt.cur.buf
		case bt.size > 0:
			bt.buf = make([]T, 0, bt.size)
		}
	}
	bt.buf = append(bt.buf, s)
	if bt.size == 0 || len(bt.buf) < bt.size {
		return true
	}
	if bt.last == Pad && bt.fill == nil && bt.head == nil {
		bt.head = append(make([]T, 0, bt.size), bt.buf...)
	}
	return yield(bt.done(0), nil)
}

// done hands buf over as a batch with padded padding samples.
func (bt *batcher[T]) done(padded int) Batch[T] {
	b := Batch[T]{Samples: bt.buf, Padded: padded}
	if bt.carried > 0 {
		b.Carried = min(bt.carried, len(bt.buf)-padded)
		bt.carried -= b.Carried
	}
	if bt.cur != nil {
		bt.cur.buf = bt.buf[:0] // size 0 may have grown it
		b.slot, b.gen = bt.cur, bt.cur.gen
		bt.cur = nil
	}
	bt.buf = nil
	return b
}

// abandon returns the slot of a batch the pass did not finish.
func (bt *batcher[T]) abandon() {
	if bt.cur != nil {
		bt.pool.put(bt.cur)
		bt.cur = nil
	}
}

// round holds the number of samples the next pass of a RoundBatch reader
// skips.
type round struct {
	mu   sync.Mutex
	skip int
}

func (rb *round) take() int {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	n := rb.skip
	rb.skip = 0
	return n
}

func (rb *round) put(n int) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.skip = n
}

// roundPass builds one pass of a RoundBatch reader of size > 0. The pass
// skips the first skip samples of r; base samples of its epoch were read
// before r's pass (a resumed pass), and headOf, when not nil, is the
// epoch's pass from its start, for the samples the last batch repeats.
// When the pass has read its last sample, ended gets the skip of the next
// pass and whether a padded last batch follows.
func roundPass[T any](ctx context.Context, r source.Reader[T], size, skip, base int, headOf source.Reader[T], ended func(next int, padded bool), p *pool[T]) iter.Seq2[Batch[T], error] {
	return func(yield func(Batch[T], error) bool) {
		bt := batcher[T]{size: size, last: RoundBatch, pool: p}
		defer bt.abandon()
		head := make([]T, 0, size) // the first samples of r, skipped ones included
		total := 0
		for s, err := range r.All(ctx) {
			if err != nil {
				yield(Batch[T]{}, err)
				return
			}
			total++
			if len(head) < size {
				head = append(head, s)
			}
			if total <= skip {
				continue
			}
			if !bt.push(s, yield) {
				return
			}
		}
		total += base
		n := len(bt.buf)
		if n == 0 {
			ended(0, false)
			return
		}
		if headOf != nil {
			var err error
			if head, err = firstN(ctx, headOf, size); err != nil {
				yield(Batch[T]{}, err)
				return
			}
		}
		padded := size - n
		for i := range padded {
			bt.buf = append(bt.buf, head[i%len(head)])
		}
		ended(padded%total, true)
		yield(bt.done(padded), nil)
	}
}

// firstN returns the first n samples of a pass of r.
func firstN[T any](ctx context.Context, r source.Reader[T], n int) ([]T, error) {
	out := make([]T, 0, n)
	for s, err := range r.All(ctx) {
		if err != nil {
			return nil, err
		}
		if out = append(out, s); len(out) == n {
			break
		}
	}
	return out, nil
}

// resumeInput checks that st is a state of kind with npos positions and one
// input, and resumes r, the reader batched, from that input's state.
func resumeInput[T any](st source.State, kind string, npos int, r source.Reader[T]) (source.Reader[T], error) {
	if err := st.Check(kind, npos, 1); err != nil {
		return nil, err
	}
	return source.ResumeFrom(r, st.In[0])
}
