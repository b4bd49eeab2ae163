package sink

import (
	"context"
	"fmt"
	"iter"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Tensorize returns a reader that groups the samples of r into batches of
// the sink's batch size, with last deciding what happens to a short last
// batch (batch.Keep, batch.Drop, batch.Pad, batch.RollOver, batch.RoundBatch;
// see batch.Of), and assembles every batch with s. The batch size is the
// one given to New: it is written once, where the tensors are described.
//
// Every *tensor.Batch belongs to the consumer, who may keep it or hand its
// memory back with Release when done (safe through pipeline's Buffered, however
// far ahead it reads); every pass draws from the sink's free list, and the
// sample batches in between are recycled too, so in steady state a
// consumer that releases makes Tensorize allocation-free.
//
// With batch.RollOver and batch.RoundBatch the reader carries what the
// next pass needs (the remainder, the count of samples to skip), as
// batch.Of does; build one reader and run its passes, rather than a new
// reader per epoch.
//
// An error from r ends the pass. Tensorize panics when last is not a known
// batch.Policy. To pad with a fixed value (batch.OfFill) or to group
// samples by hand, use TensorizeBatches.
func Tensorize[T any](r source.Reader[T], s *Sink[T], last batch.Policy) source.Reader[*tensor.Batch] {
	return TensorizeBatches(batch.Of(r, s.size, last, batch.Recycling()), s)
}

// TensorizeBatches returns a reader that assembles every batch of r with s.
// Any source.Reader[batch.Batch[T]] will do: batch.OfFill, or a batch
// reader the user writes (PaddlePaddle's custom_batch_reader), as long as
// no batch holds more samples than the sink's batch size.
//
// Ownership is as for Tensorize. TensorizeBatches is the last consumer of
// r's batches: once a batch is assembled it hands the batch back
// (batch.Batch.Release), so that a batch.Of built with batch.Recycling
// fills the same Samples slice again.
//
// An error from r ends the pass; so does a batch that does not fit s, with
// an error that names the batch's index in the pass and wraps ErrBatch.
// Short and padded batches are logged at debug level, and the end of a
// pass too, through tensorfeed.Logger of the pass's context.
func TensorizeBatches[T any](r source.Reader[batch.Batch[T]], s *Sink[T]) source.Reader[*tensor.Batch] {
	return source.Follow("tensorize", r, func(r source.Reader[batch.Batch[T]]) source.Reader[*tensor.Batch] {
		return source.Func[*tensor.Batch](func(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
			return func(yield func(*tensor.Batch, error) bool) {
				logger := tensorfeed.Logger(ctx)
				n, samples := 0, 0
				defer func() {
					if ce := logger.Check(zap.DebugLevel, "sink: tensorize pass ended"); ce != nil {
						ce.Write(zap.Int("batches", n), zap.Int("samples", samples))
					}
				}()
				for b, err := range r.All(ctx) {
					if err != nil {
						yield(nil, err)
						return
					}
					t, err := s.assemble(b, logger)
					samples += len(b.Samples)
					b.Release() // assemble copied it
					if err != nil {
						yield(nil, fmt.Errorf("batch %d of the pass: %w", n, err))
						return
					}
					n++
					if !yield(t, nil) {
						return
					}
				}
			}
		})
	})
}
