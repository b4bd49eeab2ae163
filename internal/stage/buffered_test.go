package stage_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestBufferedKeepsOrderAndValues(t *testing.T) {
	for _, total := range []int{0, 1, 5, 10000} {
		for _, n := range []int{1, 2, 7, 1024} {
			t.Run(fmt.Sprintf("samples=%d/n=%d", total, n), func(t *testing.T) {
				in := lo.Range(total)
				r := stage.Buffered(source.Slice(in), n)
				for pass := range 2 {
					got, errs := fixture.Drain(context.Background(), r)
					if len(errs) != 0 {
						t.Fatal(errs)
					}
					if !slices.Equal(got, in) && !(len(got) == 0 && len(in) == 0) {
						t.Fatalf("pass %d: got %d samples, not the input in order", pass, len(got))
					}
				}
			})
		}
	}
}

func TestBufferedUpstreamErrorAfterItsSamples(t *testing.T) {
	for _, n := range []int{1, 3, 1000} {
		// Pass fails the test on anything after the first error.
		got, err := fixture.Pass(t, context.Background(), stage.Buffered(sourcetest.FailAfter(fixture.Count(100), 100, errBoom), n))
		if !errors.Is(err, errBoom) {
			t.Fatalf("n=%d: error %v, want errBoom", n, err)
		}
		if !slices.Equal(got, lo.Range(100)) {
			t.Fatalf("n=%d: got %d samples before the error, want 100", n, len(got))
		}
	}
}

func TestBufferedUpstreamPanic(t *testing.T) {
	up := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range 10 {
				if !yield(i, nil) {
					return
				}
			}
			panicInConcTest(10)
		}
	})
	got, errs := fixture.Drain(context.Background(), stage.Buffered(up, 4))
	var pe *tensorfeed.PanicError
	if len(errs) != 1 || !errors.As(errs[0], &pe) || pe.Value != "bad sample 10" {
		t.Fatalf("errors = %v, want one PanicError", errs)
	}
	if !slices.Equal(got, lo.Range(10)) {
		t.Fatalf("got %v before the panic, want 0..9", got)
	}
}

func TestBufferedEarlyBreakBoundsReadAhead(t *testing.T) {
	var read atomic.Int64
	const n = 16
	r := stage.Buffered(fixture.Endless(&read), n)
	for pass := range 3 {
		i := 0
		for v, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if v != i {
				t.Fatalf("sample %d = %d", i, v)
			}
			i++
			if i == 200 {
				break
			}
		}
		// n waiting, up to n in the consumer's block, one the reader holds.
		if got := read.Swap(0); got > 200+2*n+1 {
			t.Fatalf("pass %d: read %d samples for 200 consumed with n=%d", pass, got, n)
		}
	}
}

func TestBufferedCancelWhileRanging(t *testing.T) {
	// After 1000 samples the reader is blocked on a full buffer, or soon.
	sourcetest.CancelAfter(t, stage.Buffered(fixture.Endless(nil), 8), 1000)
}

func TestBufferedCancelWhileConsumerWaits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := 0
	for _, err := range stage.Buffered(fixture.Stalling(3), 8).All(ctx) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			continue
		}
		got++
		if got == 3 {
			go cancel() // the consumer waits on a stalled reader when this lands
		}
	}
	if got != 3 {
		t.Fatalf("got %d samples, want 3", got)
	}
}

func TestBufferedCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errs := fixture.Drain(ctx, stage.Buffered(fixture.Endless(nil), 4))
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors = %v, want one context.Canceled", errs)
	}
}

func TestBufferedPanicsOnNegativeSize(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Buffered(r, -1) did not panic")
		}
	}()
	stage.Buffered(source.Slice([]int{1}), -1)
}

// countingReader yields 0..n-1 and counts, in *read, the samples it has
// produced, so a test can see how far ahead of the consumer it was read.
func countingReader(n int, read *int) source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range n {
				*read++
				if !yield(i, nil) {
					return
				}
			}
		}
	})
}

// TestBufferedZeroIsPaddleNoBuffering checks that a size of 0 turns
// buffering off, as PaddlePaddle's buffered decorator accepts it: every
// sample arrives in order and none is read before the consumer asks.
func TestBufferedZeroIsPaddleNoBuffering(t *testing.T) {
	checkNoReadAhead(t, func(r source.Reader[int]) source.Reader[int] { return stage.Buffered(r, 0) })
}

// checkNoReadAhead checks, over two passes, that stage applied to a reader
// of 100 samples yields every sample in order and reads none of them before
// the consumer asks for it.
func checkNoReadAhead(t *testing.T, stage func(source.Reader[int]) source.Reader[int]) {
	t.Helper()
	read := 0
	r := stage(countingReader(100, &read))
	for pass := range 2 {
		read = 0
		i := 0
		for v, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if v != i || read != i+1 {
				t.Fatalf("pass %d: sample %d is %d with %d read; want %d with %d read", pass, i, v, read, i, i+1)
			}
			i++
		}
		if i != 100 {
			t.Errorf("pass %d: %d samples, want 100", pass, i)
		}
	}
}

// checkCancelStops cancels a pass of r, a reader of total samples, after
// its 10th sample and checks that the pass ends with one error before it
// has yielded them all.
func checkCancelStops(t *testing.T, r source.Reader[int], total int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n, errs := 0, 0
	for _, err := range r.All(ctx) {
		if err != nil {
			errs++
			continue
		}
		if n++; n == 10 {
			cancel()
		}
	}
	if errs != 1 || n >= total {
		t.Errorf("after cancel: %d samples, %d errors", n, errs)
	}
}
