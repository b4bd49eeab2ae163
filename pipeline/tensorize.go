package pipeline

import (
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Tensorize groups the samples of p into batches of the sink's batch size
// (the one given to sink.New, written nowhere else) and assembles every
// batch into named, shaped tensors as described by s (s.ProvideData and
// s.ProvideLabel are known before the first batch). last decides what
// happens to a short last batch: batch.Keep, batch.Drop, batch.Pad or
// batch.RollOver (see batch.Of).
//
// It adds two steps, "batch" (batch.Of, recycling its sample slices) and
// "tensorize" (sink.TensorizeBatches), so Stats shows both. The consumer
// owns every *tensor.Batch and hands its memory back with Release; that is
// safe behind Buffered, which is where prefetching belongs:
//
//	feed := pipeline.Tensorize(samples, s, batch.Keep).Buffered(4)
func Tensorize[T any](p *Pipe[T], s *sink.Sink[T], last batch.Policy) *Pipe[*tensor.Batch] {
	b := thenSync(p, "batch", batch.Of[T](p, s.BatchSize(), last, batch.Recycling()))
	return thenSync(b, "tensorize", sink.TensorizeBatches[T](b, s))
}

// TensorizeBatches adds sink.TensorizeBatches: batches made by Batch,
// BatchFill or any batch reader (PaddlePaddle's custom_batch_reader) become
// tensors as described by s; no batch may hold more samples than the
// sink's batch size. Step name "tensorize".
func TensorizeBatches[T any](p *Pipe[batch.Batch[T]], s *sink.Sink[T]) *Pipe[*tensor.Batch] {
	return thenSync(p, "tensorize", sink.TensorizeBatches[T](p, s))
}
