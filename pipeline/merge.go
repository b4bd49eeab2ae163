package pipeline

import (
	"context"
	"iter"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/flow"

	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/source"
)

// Merge reads several readers at once and yields their elements, as they
// arrive, in one stream (fan-in). It is built on go-streams: every reader
// feeds a flow.PassThrough and flow.Merge joins them. The order in which
// readers interleave depends on timing, so a merged pass is not
// deterministic even when every input is; each input's own order is kept.
// For a deterministic mix use stage.Chain or stage.Zip2.
//
// Every element is carried as an `any` over unbuffered channels, which
// costs about a microsecond and, for non-pointer T, one small allocation:
// merge batches or pointers rather than single samples.
//
// The first error of any reader (a panic in one becomes a
// *source.PanicError) ends the pass after the elements already delivered.
// Merge panics when given no reader. The step is named "merge"; it inherits
// its logger from the first input that is a Pipe, whose steps appear in
// Stats.
//
// # Goroutines
//
// A pass starts one goroutine per reader, in a scope.Group, that ranges the
// reader and sends into its PassThrough, selecting on the pass's context.
// go-streams adds a goroutine per PassThrough, one per input of flow.Merge,
// one that closes the merged flow and the merged PassThrough's own. When the
// pass ends for any reason it cancels its feeders, reads the merged outlet
// until go-streams closes it (each go-streams goroutine has then left its
// loop) and waits for the feeders, so none outlives the pass.
func Merge[T any](rs ...source.Reader[T]) *Pipe[T] {
	if len(rs) == 0 {
		panic("pipeline.Merge: no reader")
	}
	var parents []*node
	cfg := (*config)(nil)
	for _, r := range rs {
		if r == nil {
			panic("pipeline.Merge: nil reader")
		}
		if p, ok := r.(*Pipe[T]); ok {
			parents = append(parents, p.node)
			if cfg == nil {
				cfg = p.node.cfg
			}
		}
	}
	if cfg == nil {
		cfg = newConfig(nil)
	}
	rs = append([]source.Reader[T](nil), rs...)
	r := source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) { mergePass(ctx, rs, yield) }
	})
	n := newNode("merge", cfg, parents...)
	return &Pipe[T]{r: instrument(n, r), node: n}
}

func mergePass[T any](ctx context.Context, rs []source.Reader[T], yield func(T, error) bool) {
	var zero T
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := scope.New(cctx)
	ins := make([]streams.Flow, len(rs))
	for i, r := range rs {
		pt := flow.NewPassThrough()
		ins[i] = pt
		g.Go(func() error { return feed(gctx, r, pt.In()) })
	}
	ch := flow.Merge(ins...).Out()
	defer func() {
		cancel()
		drain(ch)
		g.Wait()
	}()
	if !relay(ch, yield) {
		return
	}
	if err := g.Wait(); err != nil {
		yield(zero, err)
	}
}
