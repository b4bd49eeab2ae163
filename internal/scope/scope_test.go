package scope_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/source"
	"go.uber.org/goleak"
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
	var pe *source.PanicError
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
