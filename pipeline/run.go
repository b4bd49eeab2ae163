package pipeline

import (
	"context"
	"iter"
	"time"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"

	"github.com/tensorfeed/tensorfeed/source"
)

// Epochs runs n passes of p, one per epoch, and yields each epoch's number
// with the pass to range over:
//
//	for epoch, pass := range p.Epochs(ctx, 3) {
//		for b, err := range pass {
//			if err != nil {
//				return err
//			}
//			train(b)
//		}
//		evaluate(epoch) // per-epoch work goes here, between passes
//	}
//
// Epoch e's pass runs with source.WithEpoch(ctx, e), so every random stage
// (Shuffle, Generate, augmentation) draws from (seed, e): epochs differ and
// a run repeats exactly. n < 0 runs until the loop stops or ctx is
// cancelled.
//
// Each pass is ranged at most once, inside its loop body; a pass that is
// not ranged reads nothing. When the body returns, one Info entry "epoch
// done" is logged, through tensorfeed.Logger(ctx), with the epoch, its
// samples, time, error, the epoch's Report in brief (waited: how long the
// loop waited for data; slowest: the slowest step's name, empty when the
// input is not the bottleneck) and an array of
// every step's counters for the epoch (see Stats). For the whole report of
// an epoch, printed, see Stats.Report. After an epoch in which ctx was cancelled
// no further epoch starts.
func (p *Pipe[T]) Epochs(ctx context.Context, n int) iter.Seq2[int, iter.Seq2[T, error]] {
	return p.epochs(ctx, 0, 0, p, n)
}

// epochs runs the passes of epochs start .. n-1, the first one with first,
// which begins after step items of its epoch (a resumed pass).
func (p *Pipe[T]) epochs(ctx context.Context, start int, step int64, first source.Reader[T], n int) iter.Seq2[int, iter.Seq2[T, error]] {
	return func(yield func(int, iter.Seq2[T, error]) bool) {
		for e := start; n < 0 || e < n; e++ {
			r := source.Reader[T](p)
			var base int64
			if e == start {
				r, base = first, step
			}
			p.pos.set(e, base)
			ep := epoch[T]{r: r, ctx: source.WithEpoch(ctx, e), e: e, base: base, pos: &p.pos}
			before := p.Stats()
			start := time.Now()
			more := yield(e, ep.all)
			p.logEpoch(ctx, e, before, ep.samples, time.Since(start), ep.err)
			if !more || ctx.Err() != nil {
				return
			}
		}
	}
}

// epoch is one pass of Epochs; it counts what the consumer received and
// keeps the pipe's position.
type epoch[T any] struct {
	r       source.Reader[T]
	ctx     context.Context
	e       int
	base    int64 // the items of the epoch before this pass (a resumed pass)
	pos     *position
	samples int64
	err     error
}

func (ep *epoch[T]) all(yield func(T, error) bool) {
	for v, err := range ep.r.All(ep.ctx) {
		if err != nil {
			ep.err = err
		} else {
			ep.samples++
			ep.pos.set(ep.e, ep.base+ep.samples)
		}
		if !yield(v, err) {
			return
		}
	}
}

func (p *Pipe[T]) logEpoch(ctx context.Context, e int, before Stats, samples int64, d time.Duration, err error) {
	ce := tensorfeed.Logger(ctx).Check(zap.InfoLevel, "epoch done")
	if ce == nil {
		return
	}
	rate := 0.0
	if d > 0 {
		rate = float64(samples) / d.Seconds()
	}
	r := p.Stats().Sub(before).Report()
	ce.Write(zap.String("pipeline", p.node.name), zap.Int("epoch", e), zap.Int64("samples", samples),
		zap.Duration("wall", d), zap.Float64("per_s", rate), zap.Duration("waited", r.Waited),
		zap.String("slowest", r.Slowest.Name), zap.Array("stages", r.Stats), zap.Error(err))
}
