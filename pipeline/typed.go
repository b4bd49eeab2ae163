package pipeline

import (
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/stage"
)

// Map adds stage.Map: f runs on the consumer's goroutine for every sample.
// Step name "map".
func Map[In, Out any](p *Pipe[In], f func(In) Out) *Pipe[Out] {
	return thenSync(p, "map", stage.Map[In, Out](p, f))
}

// MapErr adds stage.MapErr: the first error from f ends the pass. Step name
// "map".
func MapErr[In, Out any](p *Pipe[In], f func(In) (Out, error)) *Pipe[Out] {
	return thenSync(p, "map", stage.MapErr[In, Out](p, f))
}

// Enumerate adds stage.Enumerate: every sample with its index in the pass.
// Step name "enumerate".
func Enumerate[T any](p *Pipe[T]) *Pipe[stage.Indexed[T]] {
	return thenSync(p, "enumerate", stage.Enumerate[T](p))
}

// Batch adds batch.Of: batches of size samples with the given last-batch
// policy and options (batch.Recycling), for a consumer that wants batches
// of samples. For tensors use Tensorize, which batches with the sink's size.
// Step name "batch".
func Batch[T any](p *Pipe[T], size int, last batch.Policy, opts ...batch.Option) *Pipe[batch.Batch[T]] {
	return thenSync(p, "batch", batch.Of[T](p, size, last, opts...))
}

// BatchFill adds batch.OfFill: a short last batch is padded with fill. Step
// name "batch".
func BatchFill[T any](p *Pipe[T], size int, fill T, opts ...batch.Option) *Pipe[batch.Batch[T]] {
	return thenSync(p, "batch", batch.OfFill[T](p, size, fill, opts...))
}

// Zip2 adds stage.Zip2 of p and b: pairs of samples, one from each. When b
// is a Pipe its steps appear in the stats too. Step name "zip".
func Zip2[A, B any](p *Pipe[A], b source.Reader[B], opts ...stage.ZipOption) *Pipe[stage.Tuple2[A, B]] {
	q := then(p, "zip", stage.Zip2[A, B](p, b, opts...))
	if bp, ok := b.(*Pipe[B]); ok {
		q.node.parents = append(q.node.parents, bp.node)
	}
	return q
}

// Apply adds any stage, typed or type-preserving, as one step named "apply"
// (rename it with Named):
//
//	seqs := pipeline.Apply(batches, func(r source.Reader[batch.Batch[[]int32]]) source.Reader[batch.Seqs[int32]] {
//		return batch.PadSeqsReader(r, 0, 0)
//	})
func Apply[In, Out any](p *Pipe[In], s stage.Stage[In, Out]) *Pipe[Out] {
	if s == nil {
		panic("pipeline.Apply: nil stage")
	}
	return then(p, "apply", s(p))
}
