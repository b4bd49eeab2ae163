package source

import (
	"context"
	"sync/atomic"
)

type epochKey struct{}

// WithEpoch returns a context that tells the readers of a pass which epoch
// it is. Random stages derive their generator from (seed, epoch), so a pass
// run with the same seed and epoch repeats exactly.
func WithEpoch(ctx context.Context, epoch int) context.Context {
	return context.WithValue(ctx, epochKey{}, epoch)
}

// epochFrom reports the epoch set by WithEpoch, if any. It is not
// exported: Epochs.Start is the one way a stage learns its epoch.
func epochFrom(ctx context.Context) (int, bool) {
	e, ok := ctx.Value(epochKey{}).(int)
	return e, ok
}

// Epochs numbers the passes of one stage. The zero value is ready to use and
// it is safe for concurrent use.
type Epochs struct{ n atomic.Int64 }

// Start begins a pass of the stage that owns e: it returns ctx with the
// pass's epoch set, for the readers the stage runs, and the epoch: the one
// in ctx when the caller set one, else the number of passes this counter
// has started before (0, 1, 2, ...). It is the one way a stage learns and passes on its epoch:
//
//	ctx, epoch := s.epochs.Start(ctx)
//	rng := source.NewRand(seed, epoch, -1)
//	for v, err := range upstream.All(ctx) { ... }
func (e *Epochs) Start(ctx context.Context) (context.Context, int) {
	if ep, ok := epochFrom(ctx); ok {
		return ctx, ep
	}
	ep := int(e.n.Add(1) - 1)
	return WithEpoch(ctx, ep), ep
}
