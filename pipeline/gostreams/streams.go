package gostreams

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"sync"

	"github.com/reugn/go-streams"

	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// ErrType is wrapped by the error a pass yields when a go-streams channel
// delivers an element that is neither the reader's element type nor an
// error.
var ErrType = errors.New("gostreams: element of the wrong type")

func typeError[T any](index int, e any) error {
	return fmt.Errorf("%w: element %d is %T, want %v", ErrType, index, e, reflect.TypeFor[T]())
}

// unbox returns the T inside the go-streams element e. A nil element is the
// zero T when T is an interface type, and a wrong type otherwise.
func unbox[T any](e any) (T, bool) {
	if v, ok := e.(T); ok {
		return v, true
	}
	var zero T
	return zero, e == nil && any(zero) == nil
}

// passSource is the go-streams Source that [To] returns (its doc says how
// it runs). The type is not exported: callers chain it (.Via, .Out) or
// hold it as a streams.Source, and call Err on it.
type passSource[T any] struct {
	r    source.Reader[T]
	ctx  context.Context
	out  chan any
	once sync.Once
	via  bool
	g    *scope.Group // set by once
}

var _ streams.Source = (*passSource[int])(nil)

// To returns a go-streams Source over one pass of r, run with ctx.
// Nothing runs until Out or Via is called.
//
// The source is one pass of a typed reader, so that go-streams operators
// and sinks can consume it:
//
//	gostreams.To(ctx, batches).Via(flow.NewMap(f, 1)).To(extension.NewStdoutSink())
//
// It carries every element as an `any` over an unbuffered channel, so use
// it for batches or pointers, not for single small samples.
//
// # Goroutines, errors and cancellation
//
// The pass starts when Out or Via is first called: one goroutine, joined by
// Err, ranges the reader and sends each element, selecting on ctx. The
// channel is closed when the pass ends, fails or ctx is cancelled; go-streams
// operators downstream then close their own channels in turn. go-streams
// has no error channel, so a failed pass does not reach the operators: Err
// waits for the goroutine and returns the error (a panic in the reader
// becomes a *tensorfeed.PanicError; cancellation gives ctx.Err()). A source
// built inside From with the context From gave reports its
// error to that reader by itself.
func To[T any](ctx context.Context, r source.Reader[T]) *passSource[T] {
	if r == nil {
		panic("gostreams.To: nil reader")
	}
	s := &passSource[T]{r: r, ctx: ctx, out: make(chan any)}
	if reg, ok := ctx.Value(registryKey{}).(*registry); ok {
		reg.add(s.Err)
	}
	return s
}

func (s *passSource[T]) start(in chan<- any, via bool) bool {
	started := false
	s.once.Do(func() {
		started = true
		s.via = via
		g, gctx := scope.New(s.ctx)
		s.g = g
		g.Go(func() error { return feed(gctx, s.r, in) })
	})
	return started
}

// Out starts the pass, if it has not started, and returns the channel of
// its elements. Use either Out or Via, not both.
func (s *passSource[T]) Out() <-chan any {
	if !s.start(s.out, false) && s.via {
		panic("gostreams: To(...).Out after Via")
	}
	return s.out
}

// Via starts the pass, sending its elements straight into f's inlet (no
// extra goroutine), and returns f. It panics when the pass has already
// started.
func (s *passSource[T]) Via(f streams.Flow) streams.Flow {
	if !s.start(f.In(), true) {
		panic("gostreams: To(...).Via: pass already started")
	}
	return f
}

// Err waits for the pass to end and returns its error: nil when the reader
// ended normally, its error, a *tensorfeed.PanicError, or ctx.Err() when it was
// cancelled. Call it after the go-streams graph has consumed the channel
// (after Flow.To returns); called before Out or Via, it returns nil and the
// source can no longer start.
func (s *passSource[T]) Err() error {
	s.once.Do(func() {})
	if s.g == nil {
		return nil
	}
	return s.g.Wait()
}

// feed sends one pass of r into in, then closes in. It returns the pass's
// error, or ctx.Err() when ctx ends first.
func feed[T any](ctx context.Context, r source.Reader[T], in chan<- any) error {
	defer close(in)
	for v, err := range r.All(ctx) {
		if err != nil {
			return err
		}
		if !scope.Send(ctx, in, any(v)) {
			return ctx.Err()
		}
	}
	return nil
}

// relay yields the elements of a go-streams outlet as T until the outlet
// closes. An element that is an error (a Guard'ed failure) ends the pass with
// that error, and one of any other type with an error wrapping ErrType. relay
// reports whether the outlet closed with the consumer still listening and no
// error yielded: only then may the caller yield an error of its own.
func relay[T any](ch <-chan any, yield func(T, error) bool) bool {
	var zero T
	i := 0
	for e := range ch {
		if v, ok := unbox[T](e); ok {
			if !yield(v, nil) {
				return false
			}
		} else if err, ok := e.(error); ok {
			yield(zero, err)
			return false
		} else {
			yield(zero, typeError[T](i, e))
			return false
		}
		i++
	}
	return true
}

// drain reads ch until it is closed, so that the go-streams goroutines that
// send into it can finish.
func drain(ch <-chan any) {
	for range ch {
	}
}

type registryKey struct{}

// registry collects the error reports of the Sources built by one
// call of a From open function. Sources made later with a context
// derived from open's (by a pass that runs inside the graph) belong to
// someone else and are not collected.
type registry struct {
	mu     sync.Mutex
	closed bool
	errs   []func() error
}

func (r *registry) add(f func() error) {
	r.mu.Lock()
	if !r.closed {
		r.errs = append(r.errs, f)
	}
	r.mu.Unlock()
}

func (r *registry) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

// wait waits for every registered source and returns the first error.
func (r *registry) wait() error {
	r.mu.Lock()
	fs := r.errs
	r.mu.Unlock()
	var first error
	for _, f := range fs {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// From returns a pipe whose passes read a go-streams graph. Every
// pass calls open with a context of its own and ranges the Outlet it
// returns (a Source, a Flow, anything with Out), so every pass builds a
// fresh graph: go-streams operators start their goroutines when they are
// made and serve a single stream.
//
// Elements must be of type T (nil is accepted when T is an interface type);
// an element that is an error (such as the ones Guard produces) ends the
// pass with that error, and an element of any other type ends it with an
// error wrapping ErrType that names its index and type. (When error values
// are themselves of type T, as with T = any, they are plain elements.)
// Build the graph from To with the context open receives, and the
// upstream reader's error reaches the consumer too.
//
// # Cancellation and goroutines
//
// go-streams operators cannot be cancelled: their goroutines end only when
// their input channel is closed and their output is read to the end. So
// when the consumer stops early, an error arrives or ctx is cancelled, the
// pass cancels open's context and then keeps reading (and discarding) the
// Outlet until it is closed. The To sources built with that context
// stop sending and close their channels, every operator after them closes
// its own, and the pass waits for the sources' goroutines before it
// returns. When the Outlet is closed every go-streams goroutine upstream has
// left its loop, so none is left running. An Outlet fed from elsewhere must
// likewise be closed once open's context is done, or the pass cannot end.
//
// The first step is named "streams" (rename it with Named).
func From[T any](open func(ctx context.Context) streams.Outlet, opts ...pipeline.Option) *pipeline.Pipe[T] {
	if open == nil {
		panic("gostreams.From: nil open")
	}
	return pipeline.From(fromStreams[T](open), opts...).Named("streams")
}

func fromStreams[T any](open func(ctx context.Context) streams.Outlet) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			var zero T
			pctx, cancel := context.WithCancel(ctx)
			defer cancel()
			reg := &registry{}
			out := open(context.WithValue(pctx, registryKey{}, reg))
			reg.close()
			if out == nil {
				panic("gostreams.From: open returned nil")
			}
			ch := out.Out()
			defer func() {
				cancel()
				drain(ch)
				reg.wait()
			}()
			if !relay(ch, yield) {
				return
			}
			if err := reg.wait(); err != nil {
				yield(zero, err)
			} else if err := ctx.Err(); err != nil {
				yield(zero, err)
			}
		}
	})
}

// Via adds go-streams operators as a typed step. For every pass, build
// receives a go-streams Source of p's samples (a fresh Source: a
// go-streams operator serves one stream, so the operators are made anew for
// each pass), connects operators to it and returns the last one's Outlet,
// whose elements the step yields as Out:
//
//	gostreams.Via[*Batch, *Batch](p, func(s streams.Source) streams.Outlet {
//		return s.Via(flow.NewMap(gostreams.Guard(normalize), 1)).Via(flow.NewMap(gostreams.Guard(augment), 1))
//	})
//
// Errors and cancellation work as in From: p's error, an error
// element and an element of another type each end the pass, and stopping
// early cancels p's pass and drains the operators until they close.
// Step name "via".
//
// A panic in a go-streams operator's goroutine cannot be recovered by the
// caller and ends the program; wrap functions that may panic or fail with
// Guard, which turns both into error elements.
//
// Every element crosses at least two unbuffered channels: use Via on
// batches, not on single samples (BenchmarkStreamsHop measures a hop).
func Via[In, Out any](p *pipeline.Pipe[In], build func(src streams.Source) streams.Outlet) *pipeline.Pipe[Out] {
	if build == nil {
		panic("gostreams.Via: nil build function")
	}
	return pipeline.Apply(p, func(r source.Reader[In]) source.Reader[Out] {
		return fromStreams[Out](func(ctx context.Context) streams.Outlet {
			return build(To[In](ctx, r))
		})
	}).Named("via")
}

// Guard adapts a function for go-streams' flow.NewMap so that failures
// travel down the stream as elements instead of crashing the program: an
// element of type In is passed to f, and f's error, or a panic in f (as a
// *tensorfeed.PanicError), is sent on as the element; an error element from
// upstream is passed on untouched; any other element becomes an error
// wrapping ErrType. From and Via end the pass at the first error
// element.
//
//	flow.NewMap(gostreams.Guard(func(b *Batch) (*Batch, error) { ... }), 1)
//
// go-streams' Map with parallelism above 1 does not keep the order of its
// elements.
func Guard[In, Out any](f func(In) (Out, error)) func(any) any {
	if f == nil {
		panic("gostreams.Guard: nil function")
	}
	return func(e any) any {
		if v, ok := unbox[In](e); ok {
			out, err := guarded(f, v)
			if err != nil {
				return err
			}
			return out
		}
		if err, ok := e.(error); ok {
			return err
		}
		return fmt.Errorf("%w: %T, want %v", ErrType, e, reflect.TypeFor[In]())
	}
}

// guarded calls f and turns a panic into a *tensorfeed.PanicError.
func guarded[In, Out any](f func(In) (Out, error), v In) (out Out, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = scope.Recovered(r)
		}
	}()
	return f(v)
}
