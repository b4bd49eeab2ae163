package stage_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

var errBoom = errors.New("boom")

// probe is a reader of the ints 0, 1, ..., n-1 (endless when n < 0) that
// counts what it does, can fail at a given index, checks its context before
// every sample and records the epoch of every pass.
type probe struct {
	n      int
	failAt int // index at which a pass yields errBoom; -1 for never

	started, finished, yielded atomic.Int64

	mu     sync.Mutex
	epochs []int // epoch from the context of each pass, -1 when none
}

func newProbe(n int) *probe { return &probe{n: n, failAt: -1} }

func (p *probe) All(ctx context.Context) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		p.started.Add(1)
		defer p.finished.Add(1)
		ep := fixture.EpochOf(ctx)
		p.mu.Lock()
		p.epochs = append(p.epochs, ep)
		p.mu.Unlock()
		for i := 0; p.n < 0 || i < p.n; i++ {
			if err := ctx.Err(); err != nil {
				yield(0, err)
				return
			}
			if i == p.failAt {
				yield(0, fmt.Errorf("probe sample %d: %w", i, errBoom))
				return
			}
			p.yielded.Add(1)
			if !yield(i, nil) {
				return
			}
		}
	}
}

// open is the number of passes that started and have not returned.
func (p *probe) open() int64 { return p.started.Load() - p.finished.Load() }

func (p *probe) seenEpochs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.epochs)
}

// item is one (sample, error) pair of a pass.
type item[T any] struct {
	v   T
	err error
}

// drain ranges over a whole pass without stopping at errors, so a stage
// that yields after an error is caught. It gives up after limit items.
func drain[T any](t *testing.T, ctx context.Context, r source.Reader[T], limit int) []item[T] {
	t.Helper()
	var out []item[T]
	for v, err := range r.All(ctx) {
		out = append(out, item[T]{v, err})
		if len(out) > limit {
			t.Fatalf("pass did not end after %d items", limit)
		}
	}
	return out
}

// values returns the samples of a pass, failing the test on an error.
func values[T any](t *testing.T, r source.Reader[T]) []T {
	t.Helper()
	out, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return out
}

// contractStages wraps an int reader in each stage of this package, typed
// back to int where the stage changes the type.
var contractStages = []struct {
	name string
	wrap func(source.Reader[int]) source.Reader[int]
}{
	{"Map", func(r source.Reader[int]) source.Reader[int] {
		return stage.Map(r, func(x int) int { return x * 2 })
	}},
	{"MapErr", func(r source.Reader[int]) source.Reader[int] {
		return stage.MapErr(r, func(x int) (int, error) { return x + 1, nil })
	}},
	{"Map3", func(r source.Reader[int]) source.Reader[int] {
		inc := func(x int) int { return x + 1 }
		return stage.Map(stage.Map(stage.Map(r, inc), inc), inc)
	}},
	{"Filter", func(r source.Reader[int]) source.Reader[int] {
		return stage.Filter(r, func(x int) bool { return x%2 == 0 })
	}},
	{"Take", func(r source.Reader[int]) source.Reader[int] { return stage.Take(r, 1000) }},
	{"Skip", func(r source.Reader[int]) source.Reader[int] { return stage.Skip(r, 2) }},
	{"ChainFirst", func(r source.Reader[int]) source.Reader[int] {
		return stage.Chain(r, source.Slice([]int{7, 8}))
	}},
	{"ChainLast", func(r source.Reader[int]) source.Reader[int] {
		return stage.Chain(source.Slice([]int{7, 8}), r)
	}},
	{"Zip2First", func(r source.Reader[int]) source.Reader[int] {
		z := stage.Zip2(r, source.Constant("x", -1), stage.Shortest())
		return stage.Map(z, func(t stage.Tuple2[int, string]) int { return t.A })
	}},
	{"Zip2Second", func(r source.Reader[int]) source.Reader[int] {
		z := stage.Zip2(source.Constant(1.5, -1), r, stage.Shortest())
		return stage.Map(z, func(t stage.Tuple2[float64, int]) int { return t.B })
	}},
	{"Zip3Last", func(r source.Reader[int]) source.Reader[int] {
		z := stage.Zip3(source.Constant(1, -1), source.Constant("x", -1), r, stage.Shortest())
		return stage.Map(z, func(t stage.Tuple3[int, string, int]) int { return t.C })
	}},
	{"Zip4Last", func(r source.Reader[int]) source.Reader[int] {
		z := stage.Zip4(source.Constant(1, -1), source.Constant("x", -1), source.Constant(true, -1), r, stage.Shortest())
		return stage.Map(z, func(t stage.Tuple4[int, string, bool, int]) int { return t.D })
	}},
	{"Shuffle", func(r source.Reader[int]) source.Reader[int] { return stage.Shuffle(r, 4, 1) }},
	{"Repeat", func(r source.Reader[int]) source.Reader[int] { return stage.Repeat(r, 3) }},
	{"RepeatEndless", func(r source.Reader[int]) source.Reader[int] { return stage.Repeat(r, -1) }},
	{"Cache", stage.Cache[int]},
	{"Shard", func(r source.Reader[int]) source.Reader[int] { return stage.Shard(r, 3, 1) }},
	{"Enumerate", func(r source.Reader[int]) source.Reader[int] {
		return stage.Map(stage.Enumerate(r), func(s stage.Numbered[int]) int { return s.Value })
	}},
}

// concurrentStages are the stages that read ahead on goroutines of their
// own: the contract holds for them too, but they may read more of the
// upstream than the consumer takes.
var concurrentStages = []struct {
	name string
	wrap func(source.Reader[int]) source.Reader[int]
	opts []sourcetest.Option
}{
	{"Buffered", func(r source.Reader[int]) source.Reader[int] { return stage.Buffered(r, 4) }, nil},
	{"Buffered1", func(r source.Reader[int]) source.Reader[int] { return stage.Buffered(r, 1) }, nil},
	{"ParallelMap", func(r source.Reader[int]) source.Reader[int] {
		return stage.ParallelMap(r, 3, func(x int) (int, error) { return x * 2, nil })
	}, nil},
	{"ParallelMapSmallWindow", func(r source.Reader[int]) source.Reader[int] {
		return stage.ParallelMap(r, 2, func(x int) (int, error) { return x * 2, nil }, stage.InFlight(2))
	}, nil},
	{"ParallelMapUnordered", func(r source.Reader[int]) source.Reader[int] {
		return stage.ParallelMap(r, 3, func(x int) (int, error) { return x * 2, nil }, stage.Unordered())
	}, []sourcetest.Option{sourcetest.Nondeterministic()}},
}

// TestContract checks every stage with sourcetest.TestStage: one error,
// last, with the zero value; break and cancel stop the upstream pass; no
// goroutine left running; the same epoch repeats.
func TestContract(t *testing.T) {
	for _, tc := range contractStages {
		t.Run(tc.name, func(t *testing.T) {
			wrap := tc.wrap
			if tc.name == "RepeatEndless" { // endless over a finite upstream
				wrap = func(r source.Reader[int]) source.Reader[int] { return stage.Take(tc.wrap(r), 250) }
			}
			if err := sourcetest.TestStage(wrap, func(i int) int { return i }); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, tc := range concurrentStages {
		t.Run(tc.name, func(t *testing.T) {
			if err := sourcetest.TestStage(tc.wrap, func(i int) int { return i }, tc.opts...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestContractReadsOnlyWhatItNeeds: the stages that run on the consumer's
// goroutine read no further than the sample they fail or stop at. An
// upstream error comes after exactly the samples before it; a break after 3
// samples reads a handful of samples, not the endless rest.
func TestContractReadsOnlyWhatItNeeds(t *testing.T) {
	for _, tc := range contractStages {
		t.Run(tc.name, func(t *testing.T) {
			p := newProbe(100)
			p.failAt = 10
			items := drain(t, context.Background(), tc.wrap(p), 1000)
			if last := items[len(items)-1]; !errors.Is(last.err, errBoom) {
				t.Fatalf("last item = %v, %v; want errBoom", last.v, last.err)
			}
			if got := p.yielded.Load(); got != 10 {
				t.Errorf("upstream yielded %d samples before its error, want 10", got)
			}

			p = newProbe(-1)
			sourcetest.BreakAfter(t, tc.wrap(p), 3)
			if p.started.Load() != 1 || p.open() != 0 {
				t.Errorf("upstream passes: started %d, still open %d; want 1, 0", p.started.Load(), p.open())
			}
			if got := p.yielded.Load(); got > 3*3+4 {
				t.Errorf("upstream yielded %d samples for 3 taken", got)
			}
		})
	}
}

// TestContractNoPerSampleAlloc: the stages that run on the consumer's
// goroutine allocate per pass, not per sample.
func TestContractNoPerSampleAlloc(t *testing.T) {
	short, long := lo.Range(10), lo.Range(10000)
	for _, tc := range contractStages {
		switch tc.name {
		case "Cache": // its first pass keeps every sample, on purpose
			continue
		case "RepeatEndless": // a pass never ends
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			allocs := func(data []int) float64 {
				r := tc.wrap(source.Slice(data))
				return testing.AllocsPerRun(20, func() {
					for _, err := range r.All(context.Background()) {
						if err != nil {
							t.Fatal(err)
						}
					}
				})
			}
			a, b := allocs(short), allocs(long)
			if b > a+1 {
				t.Errorf("allocations per pass: %v for 10 samples, %v for 10000", a, b)
			}
		})
	}
}
