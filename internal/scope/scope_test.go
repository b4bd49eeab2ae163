package scope_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/scope"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFirstErrorCancelsOthers(t *testing.T) {
	g, ctx := scope.New(context.Background())
	boom := errors.New("boom")
	g.Go(func() error { <-ctx.Done(); return ctx.Err() })
	g.Go(func() error { return boom })
	if err := g.Wait(); !errors.Is(err, boom) {
		t.Fatalf("Wait = %v, want boom", err)
	}
}

func TestPanicBecomesError(t *testing.T) {
	g, _ := scope.New(context.Background())
	g.Go(func() error { panic("bad sample") })
	err := g.Wait()
	var pe *tensorfeed.PanicError
	if !errors.As(err, &pe) || pe.Value != "bad sample" || len(pe.Stack) == 0 {
		t.Fatalf("Wait = %v, want PanicError with stack", err)
	}
}

func TestStopJoinsWithoutError(t *testing.T) {
	g, ctx := scope.New(context.Background())
	ch := make(chan int)
	g.Go(func() error {
		for i := 0; ; i++ {
			if !scope.Send(ctx, ch, i) {
				return ctx.Err()
			}
		}
	})
	<-ch
	if err := g.Stop(); err != nil {
		t.Fatalf("Stop = %v, want nil", err)
	}
}

// TestCauseIsFirstError: the goroutines still running see the first error as
// the cause of their context's cancellation, and Wait reports it, not the
// errors that follow from it.
func TestCauseIsFirstError(t *testing.T) {
	g, ctx := scope.New(context.Background())
	boom := errors.New("boom")
	seen := make(chan error, 1)
	g.Go(func() error {
		<-ctx.Done()
		seen <- context.Cause(ctx)
		return ctx.Err()
	})
	g.Go(func() error { return boom })
	if err := g.Wait(); err != boom {
		t.Fatalf("Wait = %v, want boom", err)
	}
	if cause := <-seen; cause != boom {
		t.Fatalf("cause seen by the other goroutine = %v, want boom", cause)
	}
}

// TestStopCause: a stop cancels with context.Canceled as the cause.
func TestStopCause(t *testing.T) {
	g, ctx := scope.New(context.Background())
	g.Go(func() error { <-ctx.Done(); return ctx.Err() })
	if err := g.Stop(); err != nil {
		t.Fatalf("Stop = %v, want nil", err)
	}
	if cause := context.Cause(ctx); cause != context.Canceled {
		t.Fatalf("cause after Stop = %v, want context.Canceled", cause)
	}
}
