// Package scope runs the goroutines of one pass. Every goroutine started in
// a Group is joined before the pass returns; a panic in one becomes a
// *tensorfeed.PanicError; the first error cancels the others, and is the
// cause (context.Cause) of the cancellation they see.
package scope

import (
	"context"
	"runtime/debug"
	"sync"

	"github.com/tensorfeed/tensorfeed"
)

// Group is a set of goroutines that belong to one pass, like errgroup's
// Group with panics recovered into errors.
type Group struct {
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

// New returns a group and the context its goroutines must watch: it is
// cancelled when any goroutine fails, with that failure as its cause, or
// when Stop or Wait is called.
func New(parent context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancelCause(parent)
	return &Group{cancel: cancel}, ctx
}

// Go runs f in a new goroutine. A non-nil error or a panic from f is kept (the
// first one wins) and cancels the group's context with it as the cause.
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer func() {
			if v := recover(); v != nil {
				g.fail(Recovered(v))
			}
		}()
		if err := f(); err != nil {
			g.fail(err)
		}
	}()
}

func (g *Group) fail(err error) {
	g.once.Do(func() {
		g.err = err
		g.cancel(err)
	})
}

// Wait waits for every goroutine and returns the first error.
func (g *Group) Wait() error {
	g.wg.Wait()
	g.cancel(nil)
	return g.err
}

// Stop cancels the group's context, waits for every goroutine and returns the
// first error any of them reported before the stop. The errors that follow
// the stop are its consequence and are not reported.
func (g *Group) Stop() error {
	g.once.Do(func() { g.cancel(nil) })
	g.wg.Wait()
	return g.err
}

// Send delivers v on ch unless ctx is done first; it reports whether v was sent.
func Send[T any](ctx context.Context, ch chan<- T, v T) bool {
	select {
	case ch <- v:
		return true
	case <-ctx.Done():
		return false
	}
}

// Recovered wraps a value recovered from a panic with the current stack,
// as the *tensorfeed.PanicError that every concurrent stage yields. Call it
// from the deferred function that recovered.
func Recovered(v any) *tensorfeed.PanicError {
	return &tensorfeed.PanicError{Value: v, Stack: debug.Stack()}
}
