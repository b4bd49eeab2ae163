package pipeline

import (
	"context"
	"fmt"
	"iter"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// TensorizeOption configures Tensorize and TensorizeBatches.
type TensorizeOption = option.Option[tensorizeConfig]

type tensorizeConfig struct {
	workers int
}

// Workers assembles the batches on n goroutines, each filling whole
// batches, instead of on the goroutine that reads the step: the copy of
// every sample into its rows (an MNIST digit's 784 pixels scaled through a
// table, its label) is most of a feed's work once the data is in memory,
// and it scales with the cores. The batches come in their order, the same
// for any n, and a pass's state (Checkpoint, Resume) is the same as with
// one goroutine, so a run stopped with n workers resumes with any other
// number. Workers(Auto) sizes the step as the pass runs (see Autotune).
//
// The step holds at most 4n batches that the consumer has not received,
// assembled or waiting for a worker (with 2n, 4 workers on 16 cores made
// 4.4 M MNIST samples/s instead of 6.3: a batch done early waits for the
// one before it); with n > 1 it runs ahead of the consumer by itself, so a
// Buffered behind it is not needed. The default
// is 1: the batches are assembled on the goroutine that reads the step.
// With n > 1 a panic in a field's fill (sink.Float32 ...) reaches the
// consumer as a *tensorfeed.PanicError, after the batches before its own.
// Workers panics when n < 1 and n is not Auto.
func Workers(n int) TensorizeOption {
	if n < 1 && n != Auto {
		panic(fmt.Sprintf("pipeline: Workers(%d): need at least 1 (or Auto)", n))
	}
	return option.New(func(c *tensorizeConfig) { c.workers = n })
}

// Tensorize groups the samples of p into batches of the sink's batch size
// (the one given to sink.New, written nowhere else) and assembles every
// batch into named, shaped tensors as described by s (s.ProvideData and
// s.ProvideLabel are known before the first batch). last decides what
// happens to a short last batch: batch.Keep, batch.Drop, batch.Pad or
// batch.RollOver (see batch.Of). Workers(n) assembles batches on n
// goroutines.
//
// It adds two steps, "batch" (batch.Of, recycling its sample slices) and
// "tensorize" (Sink.Assemble of every batch), so Stats shows both. The consumer
// owns every *tensor.Batch and hands its memory back with Release; that is
// safe behind Buffered, which is where prefetching belongs:
//
//	feed := pipeline.Tensorize(samples, s, batch.Keep).Buffered(4)
//	feed := pipeline.Tensorize(samples, s, batch.Keep, pipeline.Workers(2)) // runs ahead by itself
func Tensorize[T any](p *Pipe[T], s *sink.Sink[T], last batch.Policy, opts ...TensorizeOption) *Pipe[*tensor.Batch] {
	b := thenSync(p, "batch", batch.Of[T](p, s.BatchSize(), last, batch.Recycling()))
	return tensorize(b, s, opts)
}

// TensorizeBatches adds the step "tensorize" alone: batches made by Batch
// or any batch reader (PaddlePaddle's custom_batch_reader, added with
// Apply) become tensors as described by s; no batch may hold more samples than the
// sink's batch size. Workers(n) assembles them on n goroutines (see
// Tensorize). Step name "tensorize".
func TensorizeBatches[T any](p *Pipe[batch.Batch[T]], s *sink.Sink[T], opts ...TensorizeOption) *Pipe[*tensor.Batch] {
	return tensorize(p, s, opts)
}

// tensorize adds the step "tensorize": every batch assembled by s, on the
// pass's goroutine with one worker, through an ordered parallel map with
// more.
func tensorize[T any](p *Pipe[batch.Batch[T]], s *sink.Sink[T], opts []TensorizeOption) *Pipe[*tensor.Batch] {
	cfg := tensorizeConfig{workers: 1}
	option.Apply(&cfg, opts)
	switch cfg.workers {
	case 1:
		return thenSync(p, "tensorize", parallelTensorize(p, s, func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (*tensor.Batch, error)) source.Reader[*tensor.Batch] {
			return source.Func[*tensor.Batch](func(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
				return func(yield func(*tensor.Batch, error) bool) {
					for b, err := range up.All(ctx) {
						var t *tensor.Batch
						if err == nil {
							t, err = f(b)
						}
						if !yield(t, err) || err != nil {
							return
						}
					}
				}
			})
		}))
	case Auto: // sized as the pass runs: see Autotune
		t := tuningOf(p.node.cfg)
		g := newGate(t)
		q := then(p, "tensorize", parallelTensorize(p, s, func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (*tensor.Batch, error)) source.Reader[*tensor.Batch] {
			return gatedMap(t, g, up, f, []ParallelOption{stage.InFlight(4 * t.cores)})
		}))
		q.node.self, q.node.tuned = selfConcurrent, func() string { return fmt.Sprintf("auto %d/%d", g.now.Load(), g.t.cores) }
		return q
	}
	n := cfg.workers
	q := then(p, "tensorize", parallelTensorize(p, s, func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (*tensor.Batch, error)) source.Reader[*tensor.Batch] {
		return stage.ParallelMap(up, n, f, stage.InFlight(4*n))
	}))
	q.node.self = selfConcurrent
	return q
}

// assembleError marks an error of Sink.Assemble on its way through the
// map, so that the pass can name the batch and leave the upstream's errors
// as they are.
type assembleError struct{ err error }

func (e *assembleError) Error() string { return e.err.Error() }

// parallelTensorize assembles every batch of r with s, in order, through
// the map that mapped builds over a pass's upstream (the pass itself for
// one worker, an ordered parallel map for more): the same batches, errors,
// logs and state whatever the map. Each batch is handed back
// (batch.Batch.Release) once assembled, so that a batch.Of built with
// batch.Recycling fills the same Samples slice again. An error of the
// upstream ends the pass as it is; a batch that does not fit s ends it
// with an error naming the batch's index in the pass. The state is the
// step's alone,
// {tensorize, the batches' state}, whatever the number of workers: an
// ordered map yields one batch per batch read, and what the workers hold
// when a run stops is assembled again after a resume.
func parallelTensorize[T any](r source.Reader[batch.Batch[T]], s *sink.Sink[T],
	mapped func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (*tensor.Batch, error)) source.Reader[*tensor.Batch]) source.Reader[*tensor.Batch] {
	return source.Follow("tensorize", r, func(up source.Reader[batch.Batch[T]]) source.Reader[*tensor.Batch] {
		return source.Func[*tensor.Batch](func(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
			return func(yield func(*tensor.Batch, error) bool) {
				logger := tensorfeed.Logger(ctx)
				n, samples := 0, 0
				defer func() {
					if ce := logger.Check(zap.DebugLevel, "sink: tensorize pass ended"); ce != nil {
						ce.Write(zap.Int("batches", n), zap.Int("samples", samples))
					}
				}()
				assemble := func(b batch.Batch[T]) (*tensor.Batch, error) {
					if len(b.Samples) < s.BatchSize() || b.Padded > 0 {
						if ce := logger.Check(zap.DebugLevel, "sink: short or padded batch"); ce != nil {
							ce.Write(zap.Int("samples", len(b.Samples)), zap.Int("padded", b.Padded), zap.Int("batch_size", s.BatchSize()))
						}
					}
					t, err := s.Assemble(b)
					b.Release() // Assemble copied it
					if err != nil {
						return nil, &assembleError{err}
					}
					return t, nil
				}
				for t, err := range mapped(up, assemble).All(ctx) {
					if err != nil {
						if ae, ok := err.(*assembleError); ok {
							err = fmt.Errorf("batch %d of the pass: %w", n, ae.err)
						}
						yield(nil, err)
						return
					}
					n++
					samples += t.Len()
					if !yield(t, nil) {
						return
					}
				}
			}
		})
	})
}
