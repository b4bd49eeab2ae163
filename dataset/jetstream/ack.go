package jetstream

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	njs "github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Tensorize is pipeline.Tensorize for messages: it groups the samples of r into
// batches of the sink's batch size, assembles each with s, and
// acknowledges the messages of a batch when the consumer releases it
// (tensor.Batch.Release), after which the sink may reuse its memory.
//
// That is the library's one signal that a batch has been used, and it
// comes from the training loop itself, however far ahead a prefetching
// step (pipeline.Pipe.Buffered) reads. So a message is acknowledged
// exactly when the batch that carried it has been released, and:
//
//   - a batch that is never released is never acknowledged: its messages
//     come again after the consumer's AckWait (at-least-once). A pass that
//     fails, is cancelled or stopped loses nothing;
//   - the consumer's MaxAckPending bounds how far the reader runs ahead of
//     the training loop: it must be at least the batch size times the
//     number of batches held at once (in the loop and in prefetching
//     stages), or the pass stalls, with a warning in the log;
//   - padding samples (batch.Pad) are copies and are not acknowledged
//     twice; with batch.Drop the messages of a short last batch are not
//     acknowledged and come again; with batch.RollOver they are
//     acknowledged with the batch of the next pass that holds them.
//
// Acknowledgements are sent without waiting for the server's reply; one
// that cannot be sent (the connection is closed) is logged at warn level
// through the logger of the pass's context, and the message comes again.
// Release may be called from any goroutine.
//
// Tensorize panics when last is batch.RoundBatch, which would skip
// messages at the start of the next pass, or is not a known batch.Policy.
func Tensorize[T any](r source.Reader[Message[T]], s *sink.Sink[T], last batch.Policy) source.Reader[*tensor.Batch] {
	if last == batch.RoundBatch {
		panic("jetstream: Tensorize with batch.RoundBatch: a stream has no start to round back to")
	}
	batches := batch.Of(r, s.BatchSize(), last, batch.Recycling())
	pool := &ackPool{}
	return source.Func[*tensor.Batch](func(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
		return func(yield func(*tensor.Batch, error) bool) {
			logger := tensorfeed.Logger(ctx)
			var vals []T
			n := 0
			for b, err := range batches.All(ctx) {
				if err != nil {
					yield(nil, err)
					return
				}
				vals = vals[:0]
				for _, m := range b.Samples {
					vals = append(vals, m.Value)
				}
				t, err := s.Assemble(batch.Batch[T]{Samples: vals, Padded: b.Padded, Carried: b.Carried})
				clear(vals) // the sink copied the samples
				if err != nil {
					b.Release()
					yield(nil, fmt.Errorf("batch %d of the pass: %w", n, err))
					return
				}
				a := pool.get()
				for _, m := range b.Real() {
					if m.msg != nil {
						a.msgs = append(a.msgs, m.msg)
					}
				}
				b.Release()
				a.wrap(t, logger)
				n++
				if !yield(a.t, nil) {
					return
				}
			}
		}
	})
}

// ackBatch is the tensor.Recycler of a batch that Tensorize hands out: a
// batch value of its own that shares the sink's tensors, so that Release
// acknowledges the messages and then releases the sink's batch.
type ackBatch struct {
	pool   *ackPool
	t      *tensor.Batch // what the consumer holds
	inner  *tensor.Batch // the sink's batch, released after the acks
	msgs   []njs.Msg
	logger *zap.Logger
}

func (a *ackBatch) wrap(inner *tensor.Batch, logger *zap.Logger) {
	a.inner, a.logger = inner, logger
	*a.t = *inner
	a.t.SetOwner(a)
}

// Recycle acknowledges the batch's messages and hands the sink its memory.
func (a *ackBatch) Recycle(b *tensor.Batch) {
	if b != a.t {
		panic("jetstream: Release of a copy of a batch that Tensorize made")
	}
	var errs []error
	for _, m := range a.msgs {
		if err := m.Ack(); err != nil && !errors.Is(err, njs.ErrMsgAlreadyAckd) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		a.logger.Warn("jetstream: could not acknowledge messages of a released batch; they will be delivered again",
			zap.Int("messages", len(errs)), zap.Error(errors.Join(errs...)))
	}
	inner := a.inner
	clear(a.msgs)
	a.msgs, a.inner, a.logger = a.msgs[:0], nil, nil
	a.pool.put(a)
	inner.Release()
}

// ackPool is the free list of a Tensorize reader's batch values, shared by
// its passes.
type ackPool struct {
	mu   sync.Mutex
	free []*ackBatch
}

func (p *ackPool) get() *ackBatch {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		a := p.free[k-1]
		p.free[k-1] = nil
		p.free = p.free[:k-1]
		return a
	}
	return &ackBatch{pool: p, t: new(tensor.Batch)}
}

func (p *ackPool) put(a *ackBatch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, a)
}

// Values returns a reader of the samples of r that acknowledges each
// message when the consumer asks for the next sample: when the body of its
// loop has run for the sample and gone on, whatever the pass yields next
// (a sample, an error, its end). It is for consumers that use each sample
// before taking the next, with no prefetching stage in between (such a
// stage asks for samples ahead of the loop, and Values would acknowledge
// samples the loop has not used yet: use [Tensorize] there).
//
// The sample that the consumer breaks on is not acknowledged: it comes
// again after AckWait (at-least-once).
func Values[T any](r source.Reader[Message[T]]) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			logger := tensorfeed.Logger(ctx)
			var used njs.Msg
			ack := func() {
				if used == nil {
					return
				}
				if err := used.Ack(); err != nil && !errors.Is(err, njs.ErrMsgAlreadyAckd) {
					logger.Warn("jetstream: could not acknowledge a message; it will be delivered again", zap.Error(err))
				}
				used = nil
			}
			for m, err := range r.All(ctx) {
				ack()
				if err != nil {
					var zero T
					yield(zero, err)
					return
				}
				if !yield(m.Value, nil) {
					return
				}
				used = m.msg
			}
			ack()
		}
	})
}
