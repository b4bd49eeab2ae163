package batch_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// ints returns 0, 1, ..., n-1.
func ints(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// got is one batch as the tests compare it.
type got struct {
	Samples []int
	Padded  int
}

func collect(t *testing.T, r source.Reader[batch.Batch[int]]) []got {
	t.Helper()
	bs, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	out := []got{}
	for _, b := range bs {
		out = append(out, got{b.Samples, b.Padded})
	}
	return out
}

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		n    int
		size int
		last batch.Policy
		want []got
	}{
		{"keep even", 6, 3, batch.Keep, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}}},
		{"keep short", 7, 3, batch.Keep, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}, {[]int{6}, 0}}},
		{"keep empty", 0, 3, batch.Keep, []got{}},
		{"keep one short", 2, 3, batch.Keep, []got{{[]int{0, 1}, 0}}},
		{"drop even", 6, 3, batch.Drop, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}}},
		{"drop short", 8, 3, batch.Drop, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}}},
		{"drop all", 2, 3, batch.Drop, []got{}},
		{"pad even", 6, 3, batch.Pad, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}}},
		{"pad one", 7, 3, batch.Pad, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}, {[]int{6, 0, 1}, 2}}},
		{"pad two", 8, 3, batch.Pad, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}, {[]int{6, 7, 0}, 1}}},
		{"pad shorter than a batch", 2, 5, batch.Pad, []got{{[]int{0, 1, 0, 1, 0}, 3}}},
		{"pad empty", 0, 3, batch.Pad, []got{}},
		{"rollover first pass", 7, 3, batch.RollOver, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, 5}, 0}}},
		{"size 1", 3, 1, batch.Keep, []got{{[]int{0}, 0}, {[]int{1}, 0}, {[]int{2}, 0}}},
		{"whole pass keep", 5, 0, batch.Keep, []got{{[]int{0, 1, 2, 3, 4}, 0}}},
		{"whole pass drop", 5, 0, batch.Drop, []got{{[]int{0, 1, 2, 3, 4}, 0}}},
		{"whole pass pad", 5, 0, batch.Pad, []got{{[]int{0, 1, 2, 3, 4}, 0}}},
		{"whole pass rollover", 5, 0, batch.RollOver, []got{{[]int{0, 1, 2, 3, 4}, 0}}},
		{"whole pass empty", 0, 0, batch.Keep, []got{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := batch.Of(source.Slice(ints(tt.n)), tt.size, tt.last)
			if g := collect(t, r); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("got %v, want %v", g, tt.want)
			}
			// A second pass of a stateless policy is the same.
			if tt.last != batch.RollOver {
				if g := collect(t, r); !reflect.DeepEqual(g, tt.want) {
					t.Errorf("second pass: got %v, want %v", g, tt.want)
				}
			}
		})
	}
}

func TestOfFill(t *testing.T) {
	tests := []struct {
		name string
		n    int
		size int
		want []got
	}{
		{"even", 4, 2, []got{{[]int{0, 1}, 0}, {[]int{2, 3}, 0}}},
		{"short", 5, 3, []got{{[]int{0, 1, 2}, 0}, {[]int{3, 4, -1}, 1}}},
		{"shorter than a batch", 1, 4, []got{{[]int{0, -1, -1, -1}, 3}}},
		{"empty", 0, 4, []got{}},
		{"whole pass", 3, 0, []got{{[]int{0, 1, 2}, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := batch.OfFill(source.Slice(ints(tt.n)), tt.size, -1)
			if g := collect(t, r); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("got %v, want %v", g, tt.want)
			}
		})
	}
}

func TestBatchReal(t *testing.T) {
	bs, err := source.Collect(context.Background(), batch.Of(source.Slice(ints(5)), 4, batch.Pad))
	if err != nil {
		t.Fatal(err)
	}
	last := bs[len(bs)-1]
	if len(last.Samples) != 4 || !reflect.DeepEqual(last.Real(), []int{4}) {
		t.Errorf("Len %d Real %v, want 4 [4]", len(last.Samples), last.Real())
	}
}

func TestRollOverEpochs(t *testing.T) {
	r := batch.Of(source.Slice(ints(10)), 4, batch.RollOver)
	want := [][]got{
		{{[]int{0, 1, 2, 3}, 0}, {[]int{4, 5, 6, 7}, 0}},                         // carry 8 9
		{{[]int{8, 9, 0, 1}, 0}, {[]int{2, 3, 4, 5}, 0}, {[]int{6, 7, 8, 9}, 0}}, // carry none
		{{[]int{0, 1, 2, 3}, 0}, {[]int{4, 5, 6, 7}, 0}},                         // carry 8 9
		{{[]int{8, 9, 0, 1}, 0}, {[]int{2, 3, 4, 5}, 0}, {[]int{6, 7, 8, 9}, 0}}, // carry none
	}
	for e, w := range want {
		if g := collect(t, r); !reflect.DeepEqual(g, w) {
			t.Errorf("epoch %d: got %v, want %v", e, g, w)
		}
	}
}

func TestRollOverShortPasses(t *testing.T) {
	// Passes shorter than a batch yield nothing until enough samples carried.
	r := batch.Of(source.Slice([]int{1, 2}), 5, batch.RollOver)
	want := [][]got{{}, {}, {{[]int{1, 2, 1, 2, 1}, 0}}, {}, {{[]int{2, 1, 2, 1, 2}, 0}}}
	for e, w := range want {
		if g := collect(t, r); !reflect.DeepEqual(g, w) {
			t.Errorf("pass %d: got %v, want %v", e, g, w)
		}
	}
}

func TestRollOverEarlyStopDropsCarry(t *testing.T) {
	r := batch.Of(source.Slice(ints(5)), 2, batch.RollOver)
	collect(t, r) // [0 1] [2 3], carry [4]
	for range r.All(context.Background()) {
		break // takes [4], yields [4 0], stops: no remainder kept
	}
	want := []got{{[]int{0, 1}, 0}, {[]int{2, 3}, 0}}
	if g := collect(t, r); !reflect.DeepEqual(g, want) {
		t.Errorf("after early stop: got %v, want %v", g, want)
	}
}

func TestRollOverConcurrentPasses(t *testing.T) {
	const n, size, passes, workers = 103, 10, 40, 4
	r := batch.Of(source.Slice(ints(n)), size, batch.RollOver)
	var mu sync.Mutex
	count := make(map[int]int)
	yielded := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range passes / workers {
				for b, err := range r.All(context.Background()) {
					if err != nil {
						t.Error(err)
						return
					}
					if len(b.Samples) != size || b.Padded != 0 {
						t.Errorf("batch of %d (padded %d), want %d full", len(b.Samples), b.Padded, size)
					}
					mu.Lock()
					for _, s := range b.Samples {
						count[s]++
					}
					yielded += len(b.Samples)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	left := n*passes - yielded
	if left < 0 || left > workers*(size-1) {
		t.Fatalf("%d samples left in the carry, want 0..%d", left, workers*(size-1))
	}
	// One more pass gets the carry first, then the new samples: nothing is
	// lost, nothing doubled.
	for b, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range b.Samples {
			count[s]++
		}
		yielded += len(b.Samples)
	}
	left = n*(passes+1) - yielded
	if left < 0 || left >= size {
		t.Fatalf("%d samples left after a sequential pass, want 0..%d", left, size-1)
	}
	total := 0
	for v := range n {
		c := count[v]
		if c < passes || c > passes+1 {
			t.Errorf("sample %d seen %d times, want %d or %d", v, c, passes, passes+1)
		}
		total += c
	}
	if total != yielded {
		t.Errorf("counted %d, yielded %d", total, yielded)
	}
}

func TestOfUpstreamError(t *testing.T) {
	boom := errors.New("boom")
	for _, p := range []batch.Policy{batch.Keep, batch.Drop, batch.Pad, batch.RollOver} {
		t.Run(p.String(), func(t *testing.T) {
			var batches, errs int
			for b, err := range batch.Of(sourcetest.FailAfter(fixture.Count(5), 5, boom), 2, p).All(context.Background()) {
				if err != nil {
					if !errors.Is(err, boom) || b.Samples != nil {
						t.Errorf("got (%v, %v), want zero batch and boom", b, err)
					}
					errs++
					continue
				}
				batches++
			}
			if batches != 2 || errs != 1 {
				t.Errorf("%d batches, %d errors; want 2 and 1", batches, errs)
			}
		})
	}
}

func TestOfCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := batch.Of(source.Slice(ints(10000)), 100, batch.Keep)
	var n int
	var last error
	for _, err := range r.All(ctx) {
		if err != nil {
			last = err
			continue
		}
		n++
		if n == 3 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) || n >= 100 {
		t.Errorf("%d batches, error %v; want few and context.Canceled", n, last)
	}
}

func TestOfEarlyBreak(t *testing.T) {
	r := batch.Of(source.Slice(ints(10)), 3, batch.Pad)
	var n int
	for range r.All(context.Background()) {
		n++
		break
	}
	if n != 1 {
		t.Fatalf("%d batches before break", n)
	}
	if g := collect(t, r); len(g) != 4 {
		t.Errorf("next pass: %d batches, want 4", len(g))
	}
}

func TestBatchesOwnTheirSamples(t *testing.T) {
	r := batch.Of(source.Slice(ints(5)), 2, batch.Pad)
	var all [][]int
	for b, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b.Samples)
		for i := range b.Samples {
			b.Samples[i] += 100 // the consumer owns the batch
		}
	}
	want := [][]int{{100, 101}, {102, 103}, {104, 100}}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("got %v, want %v (padding must come from the pass, not the consumer's copy)", all, want)
	}
}

func TestOfPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"negative size":      func() { batch.Of(source.Slice(ints(1)), -1, batch.Keep) },
		"unknown policy":     func() { batch.Of(source.Slice(ints(1)), 1, batch.Policy(9)) },
		"fill negative size": func() { batch.OfFill(source.Slice(ints(1)), -2, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

func TestPolicyString(t *testing.T) {
	got := fmt.Sprint(batch.Keep, batch.Drop, batch.Pad, batch.RollOver, batch.Policy(7))
	if want := "keep drop pad rollover Policy(7)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestOfAllocatesOneSlicePerBatch(t *testing.T) {
	const batches = 20
	r := batch.Of(source.Slice(ints(batches*64+5)), 64, batch.Keep)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(20, func() {
		for range r.All(ctx) {
		}
	})
	// One Samples slice per batch (21 with the short one) plus a few per
	// pass for the iterator's closures; nothing per sample.
	if allocs > batches+1+10 {
		t.Errorf("%v allocations per pass of %d batches", allocs, batches+1)
	}
}
