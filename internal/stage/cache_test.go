package stage_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestCacheReplays(t *testing.T) {
	p := newProbe(5)
	r := stage.Cache[int](p)
	for pass := range 4 {
		if got := values(t, r); !slices.Equal(got, lo.Range(5)) {
			t.Errorf("pass %d: got %v", pass, got)
		}
	}
	if p.started.Load() != 1 {
		t.Errorf("upstream read %d times, want once", p.started.Load())
	}
}

func TestCacheEmptyPass(t *testing.T) {
	p := newProbe(0)
	r := stage.Cache[int](p)
	for range 3 {
		if got := values(t, r); len(got) != 0 {
			t.Errorf("got %v", got)
		}
	}
	if p.started.Load() != 1 {
		t.Errorf("empty pass read %d times, want once", p.started.Load())
	}
}

// TestCacheIncompletePasses: a pass stopped early, failed or cancelled is
// not cached; the next pass reads upstream again.
func TestCacheIncompletePasses(t *testing.T) {
	var passes atomic.Int64
	// The first pass fails, later ones succeed.
	flaky := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		k := passes.Add(1)
		return func(yield func(int, error) bool) {
			for i := range 5 {
				if k == 1 && i == 2 {
					yield(0, errBoom)
					return
				}
				if !yield(i, nil) {
					return
				}
			}
		}
	})
	r := stage.Cache(flaky)
	if _, err := source.Collect(t.Context(), r); !errors.Is(err, errBoom) {
		t.Fatalf("first pass: error %v, want errBoom", err)
	}
	values(t, stage.Take(r, 2)) // stopped early
	if passes.Load() != 2 {
		t.Fatalf("upstream passes %d, want 2", passes.Load())
	}
	if got := values(t, r); !slices.Equal(got, lo.Range(5)) { // complete
		t.Errorf("got %v", got)
	}
	if got := values(t, r); !slices.Equal(got, lo.Range(5)) { // replayed
		t.Errorf("replay: got %v", got)
	}
	if passes.Load() != 3 {
		t.Errorf("upstream passes %d, want 3", passes.Load())
	}

	// A cancelled pass is not cached either.
	p := newProbe(1000)
	r2 := stage.Cache[int](p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := source.Collect(ctx, r2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pass: error %v", err)
	}
	values(t, r2)
	values(t, r2)
	if p.started.Load() != 2 {
		t.Errorf("upstream passes %d, want 2", p.started.Load())
	}
}

// TestCacheConcurrentPasses runs passes at once (under -race): all see the
// same data and upstream is not read again once one has completed.
func TestCacheConcurrentPasses(t *testing.T) {
	p := newProbe(300)
	r := stage.Cache[int](p)
	var wg sync.WaitGroup
	results := make([][]int, 4)
	for g := range results {
		wg.Go(func() {
			out, err := source.Collect(context.Background(), r)
			if err != nil {
				t.Error(err)
			}
			results[g] = out
		})
	}
	wg.Wait()
	for g, got := range results {
		if !slices.Equal(got, lo.Range(300)) {
			t.Errorf("pass %d: %d samples, not the input", g, len(got))
		}
	}
	before := p.started.Load()
	if before < 1 || before > 4 {
		t.Errorf("upstream passes %d, want 1 to 4", before)
	}
	values(t, r)
	if p.started.Load() != before {
		t.Error("upstream read again after a complete pass")
	}
}

func TestCacheCancelReplay(t *testing.T) {
	r := stage.Cache(source.Slice(lo.Range(5000)))
	values(t, r)
	checkCancelStops(t, r, 5000)
}
