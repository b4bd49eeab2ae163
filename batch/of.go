package batch

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/tensorfeed/tensorfeed/source"
)

// Of returns a reader that groups the samples of r into batches of size
// samples, in order. What happens to a short last batch depends on last
// (see Policy). Size 0 makes every pass one batch holding all its samples;
// last then has no effect. An empty pass yields no batch.
//
// Every batch owns a new Samples slice (capacity size); Of allocates
// nothing else per batch and nothing per sample, except that Pad keeps a
// copy of the first batch of each pass to pad the last one from.
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
// Of panics when size < 0 or last is not a known Policy.
func Of[T any](r source.Reader[T], size int, last Policy) source.Reader[Batch[T]] {
	if size < 0 {
		panic(fmt.Sprintf("batch: Of: negative size %d", size))
	}
	switch last {
	case Keep, Drop, Pad:
		return source.Func[Batch[T]](func(ctx context.Context) iter.Seq2[Batch[T], error] {
			return pass(ctx, r, size, last, nil, nil)
		})
	case RollOver:
		ro := &carry[T]{}
		return source.Func[Batch[T]](func(ctx context.Context) iter.Seq2[Batch[T], error] {
			return pass(ctx, r, size, last, nil, ro)
		})
	}
	panic(fmt.Sprintf("batch: Of: unknown policy %v", last))
}

// OfFill is Of with a short last batch padded to size with copies of fill;
// Batch.Padded counts them. Size 0 makes every pass one batch and then
// nothing is padded. OfFill panics when size < 0.
func OfFill[T any](r source.Reader[T], size int, fill T) source.Reader[Batch[T]] {
	if size < 0 {
		panic(fmt.Sprintf("batch: OfFill: negative size %d", size))
	}
	return source.Func[Batch[T]](func(ctx context.Context) iter.Seq2[Batch[T], error] {
		return pass(ctx, r, size, Pad, &fill, nil)
	})
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
// remainder between passes (policy RollOver).
func pass[T any](ctx context.Context, r source.Reader[T], size int, last Policy, fill *T, ro *carry[T]) iter.Seq2[Batch[T], error] {
	return func(yield func(Batch[T], error) bool) {
		var buf []T  // allocated when its first sample arrives
		var head []T // the first full batch of the pass, for Pad
		// push adds s to the batch and yields the batch when it is full;
		// it reports whether the pass goes on.
		push := func(s T) bool {
			if buf == nil && size > 0 {
				buf = make([]T, 0, size)
			}
			buf = append(buf, s)
			if size == 0 || len(buf) < size {
				return true
			}
			if last == Pad && fill == nil && head == nil {
				head = append(make([]T, 0, size), buf...)
			}
			b := Batch[T]{Samples: buf}
			buf = nil
			return yield(b, nil)
		}
		if ro != nil {
			for _, s := range ro.take() {
				if !push(s) {
					return
				}
			}
		}
		for s, err := range r.All(ctx) {
			if err != nil {
				yield(Batch[T]{}, err)
				return
			}
			if !push(s) {
				return
			}
		}
		n := len(buf)
		if n == 0 {
			return
		}
		switch {
		case size == 0 || last == Keep:
		case last == Drop:
			return
		case last == RollOver:
			ro.put(buf)
			return
		case fill != nil:
			for len(buf) < size {
				buf = append(buf, *fill)
			}
		default: // Pad with the first samples of the pass
			if head == nil {
				head = buf[:n] // the pass is shorter than one batch
			}
			for i := 0; len(buf) < size; i++ {
				buf = append(buf, head[i%len(head)])
			}
		}
		yield(Batch[T]{Samples: buf, Padded: len(buf) - n}, nil)
	}
}
