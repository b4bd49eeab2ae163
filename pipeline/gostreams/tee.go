package gostreams

import (
	"context"
	"iter"
	"sync"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/flow"

	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// Tee sends every element of p, in order, to a second consumer f (a
// statistics collector, a dump to disk, a preview) while the pipe's own
// consumer ranges the same elements (fan-out). It is built on go-streams:
// a feeder goroutine sends into a flow.PassThrough and flow.FanOut copies
// every element to two flows, one read by the consumer and one by a
// goroutine that calls f.
//
// f runs on its own goroutine, concurrently with the consumer, on the same
// values (share pointers read-only, or copy). go-streams' FanOut hands an
// element to the second branch only after the first took it, so the slower
// of the two consumers sets the pace; f lags the consumer by at most two
// elements. An error or a panic in f (a *tensorfeed.PanicError) ends the pass
// with that error after the elements already delivered; so does an error
// of p. Step name "tee".
//
// # Goroutines
//
// A pass starts the feeder and f's goroutine in a scope.Group; go-streams
// adds the FanOut goroutine and one per PassThrough. When the pass ends for
// any reason it cancels the feeder, which closes the PassThrough; FanOut
// then closes both branches. The pass reads its branch to the end, f's
// goroutine reads the other to the end (calling f no more once the pass
// is stopping), and the pass waits for both goroutines, so none outlives it.
func Tee[T any](p *pipeline.Pipe[T], f func(T) error) *pipeline.Pipe[T] {
	if f == nil {
		panic("gostreams.Tee: nil function")
	}
	side := func(ctx context.Context, fail func(error), out streams.Flow) error {
		i := 0
		for e := range out.Out() {
			if ctx.Err() != nil {
				continue
			}
			v, ok := unbox[T](e)
			if !ok {
				fail(typeError[T](i, e))
				continue
			}
			if _, err := guarded(func(v T) (struct{}, error) { return struct{}{}, f(v) }, v); err != nil {
				fail(err)
			}
			i++
		}
		return nil
	}
	return pipeline.Apply(p, func(r source.Reader[T]) source.Reader[T] { return tee(r, side) }).Named("tee")
}

// TeeSink is Tee with a go-streams Sink as the second consumer (for example
// extension.NewStdoutSink()). newSink is called for every pass, since a
// go-streams sink serves one stream. The sink receives the elements of p
// as `any`; when the pass ends it is closed through its inlet and the pass
// waits for AwaitCompletion. If the sink has a method Err() error, a non-nil
// result ends the pass with that error.
//
// go-streams sinks cannot be cancelled: one that stops reading its inlet
// blocks the pass, and a panic on a sink's own goroutine ends the program.
// Prefer Tee for user code. Step name "tee".
func TeeSink[T any](p *pipeline.Pipe[T], newSink func() streams.Sink) *pipeline.Pipe[T] {
	if newSink == nil {
		panic("gostreams.TeeSink: nil sink constructor")
	}
	side := func(_ context.Context, fail func(error), out streams.Flow) error {
		sink := newSink()
		out.To(sink) // sends on this goroutine, closes the sink's inlet, awaits completion
		if es, ok := sink.(interface{ Err() error }); ok {
			if err := es.Err(); err != nil {
				fail(err)
			}
		}
		return nil
	}
	return pipeline.Apply(p, func(r source.Reader[T]) source.Reader[T] { return tee(r, side) }).Named("tee")
}

// tee returns the reader of a fan-out step: side consumes the second branch
// and must read it to the end; it reports its failure with fail, which stops
// the pass.
func tee[T any](p source.Reader[T], side func(ctx context.Context, fail func(error), out streams.Flow) error) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			var zero T
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			g, gctx := scope.New(cctx)

			var sideErr error
			var once sync.Once
			fail := func(err error) {
				once.Do(func() { sideErr = err })
				cancel()
			}

			src := flow.NewPassThrough()
			g.Go(func() error { return feed(gctx, p, src.In()) })
			branches := flow.FanOut(src, 2)
			g.Go(func() error { return side(gctx, fail, branches[1]) })
			ch := branches[0].Out()
			defer func() {
				cancel()
				drain(ch)
				g.Wait()
			}()

			if !relay(ch, yield) {
				return
			}
			err := g.Wait() // joins the side goroutine: sideErr is now safe to read
			if sideErr != nil {
				err = sideErr
			}
			if err != nil {
				yield(zero, err)
			}
		}
	})
}
