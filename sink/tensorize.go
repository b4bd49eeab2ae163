package sink

import (
	"context"
	"fmt"
	"iter"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
)

// Tensorize returns a reader that assembles every batch of r with s. Any
// source.Reader[batch.Batch[T]] will do: the output of batch.Of, or a
// batch reader the user writes (PaddlePaddle's custom_batch_reader).
//
// Every *Tensors belongs to the consumer, who may keep it or hand it back
// with s.Recycle when done (safe through stage.Buffered, however far ahead
// it reads); every pass draws from the sink's free list, so in steady state
// a consumer that recycles makes Tensorize allocation-free.
//
// Tensorize is the last consumer of r's batches: once a batch is assembled
// it hands the batch back (batch.Batch.Recycle), so that a batch.Of built
// with batch.Recycling fills the same Samples slice again.
//
// An error from r ends the pass; so does a batch that does not fit s, with
// an error that names the batch's index in the pass and wraps ErrBatch.
func Tensorize[T any](r source.Reader[batch.Batch[T]], s *Sink[T]) source.Reader[*Tensors] {
	return source.Func[*Tensors](func(ctx context.Context) iter.Seq2[*Tensors, error] {
		return func(yield func(*Tensors, error) bool) {
			n, samples := 0, 0
			defer func() {
				if ce := s.cfg.logger.Check(zap.DebugLevel, "sink: tensorize pass ended"); ce != nil {
					ce.Write(zap.Int("batches", n), zap.Int("samples", samples))
				}
			}()
			for b, err := range r.All(ctx) {
				if err != nil {
					yield(nil, err)
					return
				}
				t, err := s.assemble(b)
				b.Recycle() // assemble copied it
				if err != nil {
					yield(nil, fmt.Errorf("batch %d of the pass: %w", n, err))
					return
				}
				n++
				samples += len(b.Samples)
				if !yield(t, nil) {
					return
				}
			}
		}
	})
}
