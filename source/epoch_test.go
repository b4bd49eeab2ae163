package source_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
)

// next starts a pass and returns its epoch.
func next(e *source.Epochs, ctx context.Context) int {
	_, ep := e.Start(ctx)
	return ep
}

func TestEpochsCountPasses(t *testing.T) {
	var e source.Epochs
	ctx := context.Background()
	for want := range 4 {
		if got := next(&e, ctx); got != want {
			t.Fatalf("pass %d: Start = %d", want, got)
		}
	}
}

func TestEpochOfContextWins(t *testing.T) {
	var e source.Epochs
	ctx := context.Background()
	if ep := fixture.EpochOf(ctx); ep != -1 {
		t.Fatalf("a bare context carries epoch %d", ep)
	}
	withEpoch := source.WithEpoch(ctx, 9)
	if ep := fixture.EpochOf(withEpoch); ep != 9 {
		t.Fatalf("WithEpoch(ctx, 9) carries epoch %d, want 9", ep)
	}
	if got := next(&e, withEpoch); got != 9 {
		t.Fatalf("Start with epoch 9 in ctx = %d", got)
	}
	// The context's epoch does not advance the stage's own count.
	if got := next(&e, ctx); got != 0 {
		t.Fatalf("Start after a context epoch = %d, want 0", got)
	}
}

func TestEpochsConcurrentUse(t *testing.T) {
	var e source.Epochs
	const n = 64
	got := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = next(&e, context.Background()) })
	}
	wg.Wait()
	slices.Sort(got)
	if !slices.Equal(got, lo.Range(n)) {
		t.Fatalf("concurrent Start gave %v, want 0..%d once each", got, n-1)
	}
}

func TestStartSetsTheEpochOnTheContext(t *testing.T) {
	var e source.Epochs
	ctx, ep := e.Start(context.Background())
	if got := fixture.EpochOf(ctx); got != ep || ep != 0 {
		t.Fatalf("Start gave epoch %d and a context with %d", ep, got)
	}
	// Readers under a stage see the stage's epoch and do not count their own.
	var inner source.Epochs
	if _, got := inner.Start(ctx); got != 0 {
		t.Fatal(got)
	}
	_, _ = e.Start(context.Background())
	ctx2, ep2 := e.Start(context.Background())
	if _, got := inner.Start(ctx2); got != ep2 || ep2 != 2 {
		t.Fatalf("inner epoch %d, want the stage's %d", got, ep2)
	}
}
