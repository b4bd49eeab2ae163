package array

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Provider yields the arrays in batches of named tensors. It is a
// source.Reader[*tensor.Batch]: every call to All is one epoch.
type Provider struct {
	n    int
	cfg  config
	sink *sink.Sink[int]
	r    source.Reader[*tensor.Batch]
}

type config struct {
	batch             int
	shuffle           bool
	seed              uint64
	dataPad, labelPad float64
}

// An Option configures a Provider.
type Option = option.Option[config]

// BatchSize sets the number of samples per batch; 0 (the default, as in
// MXNet.jl) puts all the samples in one batch. It panics if n < 0.
func BatchSize(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("array: BatchSize(%d)", n))
	}
	return option.New(func(c *config) { c.batch = n })
}

// Shuffle yields the samples of every epoch in a new order drawn from
// (seed, epoch); data and label rows stay together.
func Shuffle(seed uint64) Option {
	return option.New(func(c *config) { c.shuffle, c.seed = true, seed })
}

// Padding sets the values that fill the padding rows of a short last batch
// (MXNet.jl's data_padding and label_padding; default 0). Each is
// converted to the array's element type. Tensors.Padded counts the padding
// rows.
func Padding(data, label float64) Option {
	return option.New(func(c *config) { c.dataPad, c.labelPad = data, label })
}

// New returns a provider of the data arrays and the label arrays (label may
// be empty). It panics when there is no data array, when the arrays hold
// different numbers of samples, or when two share a name.
func New(data, label []Array, opts ...Option) *Provider {
	if len(data) == 0 {
		panic("array: New: no data array")
	}
	p := &Provider{n: data[0].n}
	option.Apply(&p.cfg, opts)
	for _, a := range slices.Concat(data, label) {
		if a.n != p.n {
			panic(fmt.Sprintf("array: New: %q has %d samples, %q has %d", a.name, a.n, data[0].name, p.n))
		}
	}
	size := p.cfg.batch
	if size == 0 {
		size = max(p.n, 1)
	}
	df := lo.Map(data, func(a Array, _ int) sink.Field[int] { return a.field(p.cfg.dataPad) })
	lf := lo.Map(label, func(a Array, _ int) sink.Field[int] { return a.field(p.cfg.labelPad) })
	p.sink = sink.New(size, df, lf)
	// The sink holds the batch size; the batches of indices take it from
	// there, padded with the index -1 that the fields turn into padding
	// rows.
	p.r = sink.TensorizeBatches(batch.OfFill(p.indices(), p.sink.BatchSize(), -1, batch.Recycling()), p.sink)
	return p
}

// indices returns the reader of sample indices: 0..n-1, or a permutation
// of them per epoch.
func (p *Provider) indices() source.Reader[int] {
	var epochs source.Epochs
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			ctx, epoch := epochs.Start(ctx)
			var perm []int
			if p.cfg.shuffle {
				perm = source.NewRand(p.cfg.seed, epoch, -1).Perm(p.n)
			}
			done := ctx.Done()
			for k := range p.n {
				if done != nil && k%256 == 0 {
					select {
					case <-done:
						yield(0, ctx.Err())
						return
					default:
					}
				}
				i := k
				if perm != nil {
					i = perm[k]
				}
				if !yield(i, nil) {
					return
				}
			}
		}
	})
}

// All starts an epoch: it yields the batches' tensors, which belong to the
// caller until it calls their Release method. The last batch of an epoch
// is padded to the batch size; Batch.Padded counts its padding rows
// (MXNet.jl's count_samples is rows minus Padded).
//
// A batch that is released is written over by a later one instead of new
// memory: a training loop that releases every batch once it is done with it
// allocates nothing per batch in steady state. A batch must not be used
// after its Release; one that is never released stays the caller's.
func (p *Provider) All(ctx context.Context) iter.Seq2[*tensor.Batch, error] { return p.r.All(ctx) }

// Len returns the number of samples.
func (p *Provider) Len() int { return p.n }

// ProvideData describes the data tensors of a full batch.
func (p *Provider) ProvideData() []tensor.Desc { return p.sink.ProvideData() }

// ProvideLabel describes the label tensors of a full batch.
func (p *Provider) ProvideLabel() []tensor.Desc { return p.sink.ProvideLabel() }
