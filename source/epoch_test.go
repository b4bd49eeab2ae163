package source_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/source"
)

func TestEpochsCountPasses(t *testing.T) {
	var e source.Epochs
	ctx := context.Background()
	for want := range 4 {
		if got := e.Next(ctx); got != want {
			t.Fatalf("pass %d: Next = %d", want, got)
		}
	}
}

func TestEpochFromContextWins(t *testing.T) {
	var e source.Epochs
	ctx := context.Background()
	if _, ok := source.EpochFrom(ctx); ok {
		t.Fatal("EpochFrom reports an epoch on a bare context")
	}
	withEpoch := source.WithEpoch(ctx, 9)
	if ep, ok := source.EpochFrom(withEpoch); !ok || ep != 9 {
		t.Fatalf("EpochFrom = %d, %v; want 9, true", ep, ok)
	}
	if got := e.Next(withEpoch); got != 9 {
		t.Fatalf("Next with epoch 9 in ctx = %d", got)
	}
	// The context's epoch does not advance the stage's own count.
	if got := e.Next(ctx); got != 0 {
		t.Fatalf("Next after a context epoch = %d, want 0", got)
	}
}

func TestEpochsConcurrentUse(t *testing.T) {
	var e source.Epochs
	const n = 64
	got := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = e.Next(context.Background()) })
	}
	wg.Wait()
	slices.Sort(got)
	if !slices.Equal(got, lo.Range(n)) {
		t.Fatalf("concurrent Next gave %v, want 0..%d once each", got, n-1)
	}
}
