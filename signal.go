package tensorfeed

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// NotifyStop returns a copy of parent that is cancelled when the process
// receives SIGINT (Ctrl-C) or SIGTERM (what a cluster scheduler sends
// before it preempts a job), with a *SignalError as its cause
// (context.Cause), so that a training loop stops at the next batch, saves
// its checkpoint and exits with ExitCode:
//
//	ctx, stop := tensorfeed.NotifyStop(context.Background())
//	defer stop()
//	if err := train(ctx); err != nil {
//		if cause := context.Cause(ctx); cause != nil {
//			err = cause // a cancelled pass ends with context.Canceled, which names no signal
//		}
//		fmt.Fprintln(os.Stderr, err)
//		os.Exit(tensorfeed.ExitCode(err))
//	}
//
// It is signal.NotifyContext with the signal kept as the cause, and one
// difference: once the first signal has cancelled the context, the
// signals are no longer caught, so a second Ctrl-C kills a program that
// does not stop soon enough, as it would without NotifyStop. A signal that
// the process ignores when NotifyStop is called (SIGINT of a program
// started in the background by a shell) stays ignored.
//
// The stop function cancels the context (cause context.Canceled), stops
// catching the signals and waits for the goroutine that watched them; call
// it as soon as the context is no longer needed.
func NotifyStop(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return ctx, func() { cancel(nil) }
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-ch:
			signal.Stop(ch) // before the cancel: a second signal gets the default action
			cancel(&SignalError{Signal: s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel(nil)
		<-done
		signal.Stop(ch)
	}
}

// SignalError is the cause of a context that NotifyStop cancelled: the
// signal the process received. It is a cancellation: errors.Is(err,
// context.Canceled) holds.
type SignalError struct {
	Signal os.Signal
}

// Error returns "stopped by SIGINT" or "stopped by SIGTERM" (the signal's
// own description for another signal).
func (e *SignalError) Error() string {
	switch e.Signal {
	case os.Interrupt:
		return "stopped by SIGINT"
	case syscall.SIGTERM:
		return "stopped by SIGTERM"
	}
	return "stopped by signal " + e.Signal.String()
}

// Is reports whether target is context.Canceled: code that treats a
// cancelled run as a stop, not a failure, treats a signal the same way.
func (e *SignalError) Is(target error) bool { return target == context.Canceled }

// exitCode returns the status a shell reports for a process that a
// signal killed, 128 plus the signal's number: 130 for SIGINT, 143 for
// SIGTERM. A program that stops cleanly on a signal exits with it, so that
// a script or a scheduler sees the run was stopped, not done and not
// failed.
func (e *SignalError) exitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// ExitCode returns the exit status for a program that ends with err: 0 for
// nil, the signal's status (128 plus its number: 130 for SIGINT, 143 for
// SIGTERM, as a shell reports a process a signal killed, so that a script
// or a scheduler sees the run was stopped, not done and not failed) when err is or wraps a *SignalError, and 1 for any other error.
// A pass cancelled by NotifyStop's context yields context.Canceled, which
// holds no signal: pass context.Cause(ctx) for it (see NotifyStop).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if se, ok := errors.AsType[*SignalError](err); ok {
		return se.exitCode()
	}
	return 1
}
