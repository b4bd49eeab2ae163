package pipeline

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// Map adds a step where f runs on the consumer's goroutine for every sample.
// Step name "map".
func Map[In, Out any](p *Pipe[In], f func(In) Out) *Pipe[Out] {
	return thenSync(p, "map", stage.Map[In, Out](p, f))
}

// MapErr is Map for an f that can fail: the first error from f ends the pass. Step name
// "map".
func MapErr[In, Out any](p *Pipe[In], f func(In) (Out, error)) *Pipe[Out] {
	return thenSync(p, "map", stage.MapErr[In, Out](p, f))
}

// Enumerate adds a step that yields every sample with its index in the pass.
// Step name "enumerate".
func Enumerate[T any](p *Pipe[T]) *Pipe[Numbered[T]] {
	return thenSync(p, "enumerate", stage.Enumerate[T](p))
}

// Batch adds batch.Of: batches of size samples with the given last-batch
// policy and options (batch.Recycling), for a consumer that wants batches
// of samples. For tensors use Tensorize, which batches with the sink's size.
// Step name "batch".
func Batch[T any](p *Pipe[T], size int, last batch.Policy, opts ...batch.Option) *Pipe[batch.Batch[T]] {
	return thenSync(p, "batch", batch.Of[T](p, size, last, opts...))
}

// Zip2 zips p and b into pairs of samples, one from each. When b
// is a Pipe its steps appear in the stats too. Step name "zip".
func Zip2[A, B any](p *Pipe[A], b source.Reader[B], opts ...stage.ZipOption) *Pipe[Tuple2[A, B]] {
	return zipped(then(p, "zip", stage.Zip2[A, B](p, b, opts...)), b)
}

// Zip3 zips p, b and c: one sample from each, as Zip2 does
// for two. Inputs that are Pipes appear in the stats. Step name "zip".
func Zip3[A, B, C any](p *Pipe[A], b source.Reader[B], c source.Reader[C], opts ...stage.ZipOption) *Pipe[Tuple3[A, B, C]] {
	return zipped(then(p, "zip", stage.Zip3[A, B, C](p, b, c, opts...)), b, c)
}

// Zip4 zips p, b, c and d: one sample from each, as Zip2 does
// for two. Inputs that are Pipes appear in the stats. Step name "zip".
func Zip4[A, B, C, D any](p *Pipe[A], b source.Reader[B], c source.Reader[C], d source.Reader[D], opts ...stage.ZipOption) *Pipe[Tuple4[A, B, C, D]] {
	return zipped(then(p, "zip", stage.Zip4[A, B, C, D](p, b, c, d, opts...)), b, c, d)
}

// zipped adds the inputs of zip q that are Pipes to its step's inputs.
func zipped[T any](q *Pipe[T], inputs ...any) *Pipe[T] {
	for _, r := range inputs {
		if in, ok := r.(interface{ stepNode() *node }); ok {
			q.node.parents = append(q.node.parents, in.stepNode())
		}
	}
	return q
}

// PadSeqs pads every batch of variable-length sequences with pad to one
// length (length, or the batch's longest sequence when length is 0) into a
// flat batch.Seqs, ready to become a [rows, length] tensor with its true
// lengths and mask; it copies the elements, allocating Data and Lens and
// nothing per row. A
// sequence longer than a fixed length ends the pass with an error wrapping
// batch.ErrTooLong, unless Truncate is given. It recycles every input
// batch after copying it, so Batch's batch.Recycling option makes batching
// allocate nothing. Step name "pad-seqs".
func PadSeqs[E any](p *Pipe[batch.Batch[[]E]], length int, pad E, opts ...SeqOption) *Pipe[batch.Seqs[E]] {
	return thenSync(p, "pad-seqs", padSeqs[E](p, length, pad, opts...))
}

// Apply adds any stage, typed or type-preserving, as one step named "apply"
// (rename it with Named):
//
//	buckets := pipeline.Apply(sentences, func(r source.Reader[[]int32]) source.Reader[batch.Batch[[]int32]] {
//		return bucketByLength(r, 64) // a stage of your own
//	}).Named("bucket")
//
// For its Self time (see Stats) the stage is taken to read its input
// inside its own pulls, as the built-in steps do.
func Apply[In, Out any](p *Pipe[In], s Stage[In, Out]) *Pipe[Out] {
	if s == nil {
		panic("pipeline.Apply: nil stage")
	}
	return then(p, "apply", s(p))
}

// padSeqs applies padBatch to every batch of r. An error from padBatch
// says which batch of the pass it came from, still wraps batch.ErrTooLong,
// and ends the pass; so does an error from r. It is the last consumer of
// r's batches: it recycles each one (Batch.Release) once padBatch has
// copied it. It panics when length < 0.
func padSeqs[E any](r source.Reader[batch.Batch[[]E]], length int, pad E, opts ...SeqOption) source.Reader[batch.Seqs[E]] {
	if length < 0 {
		panic(fmt.Sprintf("pipeline.PadSeqs: negative length %d", length))
	}
	var c seqConfig
	option.Apply(&c, opts)
	return source.Follow("pad-seqs", r, func(r source.Reader[batch.Batch[[]E]]) source.Reader[batch.Seqs[E]] {
		return source.Func[batch.Seqs[E]](func(ctx context.Context) iter.Seq2[batch.Seqs[E], error] {
			return func(yield func(batch.Seqs[E], error) bool) {
				i := 0
				for b, err := range r.All(ctx) {
					if err != nil {
						yield(batch.Seqs[E]{}, err)
						return
					}
					s, err := padBatch(b, length, pad, c)
					b.Release() // PadSeqs copied it
					if err != nil {
						yield(batch.Seqs[E]{}, fmt.Errorf("batch %d of the pass: %w", i, err))
						return
					}
					if !yield(s, nil) {
						return
					}
					i++
				}
			}
		})
	})
}

type seqConfig struct{ truncate bool }

// SeqOption changes how PadSeqs treats sequences.
type SeqOption = option.Option[seqConfig]

// Truncate makes PadSeqs cut a sequence longer than the fixed length to that
// length (keeping its first elements) instead of returning an error.
// batch.Seqs.Truncated counts the sequences cut.
func Truncate() SeqOption { return option.New(func(c *seqConfig) { c.truncate = true }) }

// padBatch pads the sequences of b with pad into one flat [len(b.Samples), l]
// block, where l is length, or the length of the longest sequence of b when
// length is 0. A sequence longer than a fixed length is an error wrapping
// batch.ErrTooLong that names its row, unless c.truncate. It copies the
// elements: the result shares no memory with b. It allocates Data and Lens,
// nothing per row.
func padBatch[E any](b batch.Batch[[]E], length int, pad E, c seqConfig) (batch.Seqs[E], error) {
	rows := b.Samples
	l := length
	if l == 0 {
		for _, s := range rows {
			l = max(l, len(s))
		}
	}
	out := batch.Seqs[E]{Data: make([]E, len(rows)*l), Lens: make([]int, len(rows)), L: l, Padded: b.Padded}
	for i, s := range rows {
		if len(s) > l {
			if !c.truncate {
				return batch.Seqs[E]{}, fmt.Errorf("%w: row %d has %d elements, fixed length %d", batch.ErrTooLong, i, len(s), l)
			}
			s = s[:l]
			out.Truncated++
		}
		row := out.Data[i*l : (i+1)*l]
		n := copy(row, s)
		for j := n; j < l; j++ {
			row[j] = pad
		}
		out.Lens[i] = n
	}
	return out, nil
}
