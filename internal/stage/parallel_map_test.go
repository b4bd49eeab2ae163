package stage_test

import (
	"bytes"
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

// concUneven is a function whose cost varies a lot from sample to sample,
// so that workers finish out of input order.
func concUneven(x int) (int, error) {
	h := uint64(x) + 1
	for range (x * 7919) % 3000 {
		h = h*6364136223846793005 + 1442695040888963407
	}
	return x*x + int(h&1) - int(h&1), nil
}

func TestParallelMapKeepsOrderForAnyWorkers(t *testing.T) {
	in := lo.Range(5000)
	want := make([]int, len(in))
	for i, x := range in {
		want[i], _ = concUneven(x)
	}
	for _, workers := range []int{1, 2, 3, 8} {
		for _, inFlight := range []int{0, 1, 3, 64, 4096} {
			t.Run(fmt.Sprintf("workers=%d/inflight=%d", workers, inFlight), func(t *testing.T) {
				var opts []stage.ParallelOption
				if inFlight > 0 {
					opts = append(opts, stage.InFlight(inFlight))
				}
				r := stage.ParallelMap(source.Slice(in), workers, concUneven, opts...)
				for pass := range 2 {
					got, errs := fixture.Drain(context.Background(), r)
					if len(errs) != 0 {
						t.Fatalf("pass %d: errors %v", pass, errs)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("pass %d: output differs from the sequential map (len %d, want %d)", pass, len(got), len(want))
					}
				}
			})
		}
	}
}

func TestParallelMapUnorderedYieldsEverySampleOnce(t *testing.T) {
	in := lo.Range(3000)
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			r := stage.ParallelMap(source.Slice(in), workers, func(x int) (int, error) {
				y, _ := concUneven(x)
				return y - x*x + x, nil // x itself, after uneven work
			}, stage.Unordered(), stage.InFlight(16))
			got, errs := fixture.Drain(context.Background(), r)
			if len(errs) != 0 {
				t.Fatal(errs)
			}
			slices.Sort(got)
			if !slices.Equal(got, in) {
				t.Fatalf("got %d samples, not a permutation of the input", len(got))
			}
		})
	}
}

func TestParallelMapEmpty(t *testing.T) {
	r := stage.ParallelMap(source.Slice([]int(nil)), 4, concUneven)
	got, errs := fixture.Drain(context.Background(), r)
	if len(got) != 0 || len(errs) != 0 {
		t.Fatalf("got %v, %v; want nothing", got, errs)
	}
}

func TestParallelMapErrorInF(t *testing.T) {
	const bad = 1234
	f := func(x int) (string, error) {
		if x == bad {
			return "", fmt.Errorf("sample %d: %w", x, errBoom)
		}
		return fmt.Sprint(x), nil
	}
	var want []string
	for x := range bad {
		want = append(want, fmt.Sprint(x))
	}
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			r := stage.ParallelMap(source.Slice(lo.Range(5000)), workers, f)
			var got []string
			var errs []error
			for v, err := range r.All(context.Background()) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if len(errs) > 0 {
					t.Fatalf("sample %q after the error", v)
				}
				got = append(got, v)
			}
			if len(errs) != 1 || !errors.Is(errs[0], errBoom) {
				t.Fatalf("errors = %v, want one wrapping errBoom", errs)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %d samples before the error, want exactly the %d before sample %d", len(got), len(want), bad)
			}
		})
	}
}

func TestParallelMapErrorInFUnordered(t *testing.T) {
	f := func(x int) (int, error) {
		if x == 700 {
			return 0, errBoom
		}
		return x, nil
	}
	r := stage.ParallelMap(source.Slice(lo.Range(5000)), 4, f, stage.Unordered())
	got, errs := fixture.Drain(context.Background(), r)
	if len(errs) != 1 || !errors.Is(errs[0], errBoom) {
		t.Fatalf("errors = %v, want one errBoom", errs)
	}
	if slices.Contains(got, 700) || len(got) >= 5000 {
		t.Fatalf("got %d samples including the failing one", len(got))
	}
}

func TestParallelMapPanicBecomesPanicError(t *testing.T) {
	for _, opts := range [][]stage.ParallelOption{nil, {stage.Unordered()}} {
		r := stage.ParallelMap(source.Slice(lo.Range(1000)), 3, func(x int) (int, error) {
			if x == 321 {
				panicInConcTest(x)
			}
			return x, nil
		}, opts...)
		got, errs := fixture.Drain(context.Background(), r)
		if len(errs) != 1 {
			t.Fatalf("errors = %v, want one", errs)
		}
		var pe *tensorfeed.PanicError
		if !errors.As(errs[0], &pe) {
			t.Fatalf("error %v is not a *tensorfeed.PanicError", errs[0])
		}
		if pe.Value != "bad sample 321" || !bytes.Contains(pe.Stack, []byte("panicInConcTest")) {
			t.Fatalf("PanicError value %v, stack without the panicking function:\n%s", pe.Value, pe.Stack)
		}
		if opts == nil && !slices.Equal(got, lo.Range(321)) {
			t.Fatalf("ordered: got %d samples before the panic, want 321", len(got))
		}
	}
}

func panicInConcTest(x int) { panic(fmt.Sprintf("bad sample %d", x)) }

func TestParallelMapUpstreamError(t *testing.T) {
	for _, workers := range []int{1, 4} {
		r := stage.ParallelMap(sourcetest.FailAfter(fixture.Count(500), 500, errBoom), workers, func(x int) (int, error) { return 2 * x, nil })
		got, errs := fixture.Drain(context.Background(), r)
		if len(errs) != 1 || !errors.Is(errs[0], errBoom) {
			t.Fatalf("errors = %v, want one errBoom", errs)
		}
		want := make([]int, 500)
		for i := range want {
			want[i] = 2 * i
		}
		if !slices.Equal(got, want) {
			t.Fatalf("workers=%d: got %d samples, want all 500 before the upstream error", workers, len(got))
		}
	}
}

// TestParallelMapUpstreamPanic: a panic in the upstream reader comes as a
// PanicError after the results of every sample read before it, in order,
// as an upstream error does.
func TestParallelMapUpstreamPanic(t *testing.T) {
	const before = 300
	up := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range before {
				if !yield(i, nil) {
					return
				}
			}
			panic("reader broke")
		}
	})
	for _, workers := range []int{1, 4} {
		for _, tc := range []struct {
			name string
			opt  stage.ParallelOption
		}{{"default", nil}, {"InFlight", stage.InFlight(1024)}, {"Unordered", stage.Unordered()}} {
			r := stage.ParallelMap(up, workers, func(x int) (int, error) { return 2 * x, nil }, tc.opt)
			got, errs := fixture.Drain(context.Background(), r)
			var pe *tensorfeed.PanicError
			if len(errs) != 1 || !errors.As(errs[0], &pe) || pe.Value != "reader broke" {
				t.Fatalf("errors = %v, want one PanicError", errs)
			}
			if tc.name == "Unordered" {
				slices.Sort(got) // it keeps every result, not their order
			}
			want := make([]int, before)
			for i := range want {
				want[i] = 2 * i
			}
			if !slices.Equal(got, want) {
				t.Fatalf("workers=%d, %s: got %d results before the panic, want all %d in order",
					workers, tc.name, len(got), before)
			}
		}
	}
}

func TestParallelMapEarlyBreakStopsEndlessUpstream(t *testing.T) {
	var read atomic.Int64
	const inFlight = 8
	r := stage.ParallelMap(fixture.Endless(&read), 4, func(x int) (int, error) { return x + 1, nil }, stage.InFlight(inFlight))
	for pass := range 3 {
		n := 0
		for v, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if v != n+1 {
				t.Fatalf("sample %d = %d, want %d", n, v, n+1)
			}
			n++
			if n == 100 {
				break
			}
		}
		// The window bounds what was read beyond what the consumer took:
		// inFlight samples, plus one the reader holds while it waits.
		if got := read.Swap(0); got > 100+inFlight+1 {
			t.Fatalf("pass %d: read %d samples for 100 consumed with InFlight(%d)", pass, got, inFlight)
		}
	}
}

func TestParallelMapCancelWhileRanging(t *testing.T) {
	for _, opts := range [][]stage.ParallelOption{nil, {stage.Unordered()}} {
		r := stage.ParallelMap(fixture.Endless(nil), 3, func(x int) (int, error) { return x, nil }, opts...)
		sourcetest.CancelAfter(t, r, 50) // the consumer keeps ranging
	}
}

func TestParallelMapCancelWhileWorkersWaitForInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := stage.ParallelMap(fixture.Stalling(10), 4, func(x int) (int, error) { return x, nil })
	got := 0
	for _, err := range r.All(ctx) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			break
		}
		got++
		if got == 10 {
			// The reader now stalls and every worker waits for input.
			go cancel()
		}
	}
	if got != 10 {
		t.Fatalf("got %d samples, want 10", got)
	}
	cancel()
}

func TestParallelMapCancelWhileFRuns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int64
	f := func(x int) (int, error) {
		if x == 5 {
			close(started)
			<-release // a long call of f: the pass waits for it
		}
		calls.Add(1)
		return x, nil
	}
	go func() {
		<-started
		cancel()
		close(release)
	}()
	got, errs := fixture.Drain(ctx, stage.ParallelMap(source.Slice(lo.Range(100000)), 2, f))
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors = %v, want one context.Canceled", errs)
	}
	if !slices.Equal(got, lo.Range(len(got))) || len(got) == 100000 {
		t.Fatalf("got %d samples, want a strict prefix of the input", len(got))
	}
}

func TestParallelMapCancelWhileWindowFull(t *testing.T) {
	// The consumer cancels and then sits in its loop body while the window
	// is full: the reader and every worker wait; the next step must end the
	// pass with the context's error.
	r := stage.ParallelMap(fixture.Endless(nil), 2, func(x int) (int, error) { return x, nil }, stage.InFlight(4))
	sourcetest.CancelAfter(t, r, 3)
}

func TestParallelMapDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, errs := fixture.Drain(ctx, stage.ParallelMap(fixture.Endless(nil), 2, func(x int) (int, error) { return x, nil }))
	if len(errs) != 1 || !errors.Is(errs[0], context.DeadlineExceeded) {
		t.Fatalf("errors = %v, want one DeadlineExceeded", errs)
	}
}

func TestParallelMapPanicsOnMisuse(t *testing.T) {
	id := func(x int) (int, error) { return x, nil }
	in := source.Slice([]int{1})
	for name, f := range map[string]func(){
		"workers=0": func() { stage.ParallelMap(in, 0, id) },
		"nil f":     func() { stage.ParallelMap[int, int](in, 1, nil) },
		"InFlight0": func() { stage.InFlight(0) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}
