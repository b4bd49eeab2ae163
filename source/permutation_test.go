package source_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// checkBijection fails unless p maps [0, n) onto [0, n) one to one and
// Index inverts At.
func checkBijection(t *testing.T, p *source.Permutation, n int) {
	t.Helper()
	seen := make([]bool, n)
	for i := range n {
		v := p.At(i)
		if v < 0 || v >= n || seen[v] {
			t.Fatalf("n=%d: At(%d) = %d: out of range or repeated", n, i, v)
		}
		seen[v] = true
		if j := p.Index(v); j != i {
			t.Fatalf("n=%d: Index(At(%d)) = %d", n, i, j)
		}
	}
}

func TestPermutationBijection(t *testing.T) {
	sizes := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 1000, 60000, 1<<20 + 3}
	for _, n := range sizes {
		for _, seed := range []uint64{0, 1, 42} {
			for _, epoch := range []int{0, 1, 7} {
				if n > 1<<16 && (seed != 42 || epoch != 1) {
					continue // the largest size once, to keep the test short
				}
				p := source.NewPermutation(n, seed, epoch)
				if p.Len() != n {
					t.Fatalf("Len = %d, want %d", p.Len(), n)
				}
				checkBijection(t, &p, n)
			}
		}
	}
}

func order(p source.Permutation) []int {
	out := make([]int, p.Len())
	for i := range out {
		out[i] = p.At(i)
	}
	return out
}

func TestPermutationDiffersAndRepeats(t *testing.T) {
	const n = 1000
	base := order(source.NewPermutation(n, 1, 0))
	if !slices.Equal(base, order(source.NewPermutation(n, 1, 0))) {
		t.Fatal("the same (n, seed, epoch) gave two orders")
	}
	if slices.Equal(base, order(source.NewPermutation(n, 1, 1))) {
		t.Fatal("epochs 0 and 1 give the same order")
	}
	if slices.Equal(base, order(source.NewPermutation(n, 2, 0))) {
		t.Fatal("seeds 1 and 2 give the same order")
	}
	fixed := 0
	for i, v := range base {
		if i == v {
			fixed++
		}
	}
	if fixed > 10 { // about 1 expected for a uniform shuffle
		t.Fatalf("%d fixed points out of %d", fixed, n)
	}
	// Small sizes: every order of 3 elements comes up over the epochs.
	orders := map[string]bool{}
	for e := range 200 {
		orders[fmt.Sprint(order(source.NewPermutation(3, 5, e)))] = true
	}
	if len(orders) != 6 {
		t.Fatalf("n=3: %d of the 6 orders seen over 200 epochs", len(orders))
	}
}

// TestPermutationSpread is a chi-square check that each element lands in
// each tenth of the positions about equally often over many epochs, and
// that neighbouring elements are scattered.
func TestPermutationSpread(t *testing.T) {
	const n, buckets, epochs = 1000, 10, 200
	var counts [buckets][buckets]float64 // element decile x position decile
	for e := range epochs {
		p := source.NewPermutation(n, 9, e)
		for i := range n {
			counts[p.At(i)*buckets/n][i*buckets/n]++
		}
	}
	want := float64(n*epochs) / buckets / buckets
	chi := 0.0
	for _, row := range counts {
		for _, c := range row {
			chi += (c - want) * (c - want) / want
		}
	}
	// 81 degrees of freedom: the 99.9% quantile is about 124.8.
	if chi > 125 {
		t.Fatalf("chi-square %.1f over 81 degrees of freedom: positions are not spread", chi)
	}
	p := source.NewPermutation(n, 9, 0)
	near := 0
	for i := 1; i < n; i++ {
		if d := p.At(i) - p.At(i-1); d >= -2 && d <= 2 {
			near++
		}
	}
	if near > 20 { // about 4 expected
		t.Fatalf("%d of %d neighbours stay within 2 of each other", near, n)
	}
}

func TestPermutationAllocs(t *testing.T) {
	p := source.NewPermutation(60000, 3, 4)
	sum := 0
	if a := testing.AllocsPerRun(10, func() {
		for i := range 1000 {
			sum += p.At(i)
		}
	}); a != 0 {
		t.Fatalf("At allocates %v times per 1000 calls", a)
	}
	_ = sum
}

func TestPermutationPanics(t *testing.T) {
	p := source.NewPermutation(3, 0, 0)
	for _, f := range []func(){
		func() { p.At(3) },
		func() { p.At(-1) },
		func() { p.Index(3) },
		func() { source.NewPermutation(-1, 0, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

// counting is a random-access dataset that counts its Gets.
type counting struct {
	n    int
	gets atomic.Int64
}

func (c *counting) Len() int { return c.n }

func (c *counting) Get(i int) (int, error) {
	c.gets.Add(1)
	if i < 0 || i >= c.n {
		return 0, source.IndexError(i, c.n)
	}
	return i * 10, nil
}

func TestReadIndexedContract(t *testing.T) {
	for _, opts := range [][]source.IndexedOption{nil, {source.ShuffleIndex(3)}} {
		r := source.ReadIndexed(source.IndexSlice([]int{1, 2, 3, 4, 5, 6, 7}), opts...)
		if err := sourcetest.TestReader(r); err != nil {
			t.Fatal(err)
		}
		if err := sourcetest.TestReader(r.From(3)); err != nil {
			t.Fatal(err)
		}
		big := source.ReadIndexed(&counting{n: 1000}, opts...)
		if err := sourcetest.TestReader(big); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadIndexedOrder(t *testing.T) {
	ctx := context.Background()
	d := &counting{n: 100}
	plain, err := source.Collect(ctx, source.ReadIndexed(d))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range plain {
		if v != i*10 {
			t.Fatalf("in order: sample %d is %d", i, v)
		}
	}
	r := source.ReadIndexed(d, source.ShuffleIndex(8))
	e0, _ := source.Collect(ctx, r) // epoch 0, counted by the reader
	e1, _ := source.Collect(ctx, r) // epoch 1
	if slices.Equal(e0, e1) || slices.Equal(e0, plain) {
		t.Fatal("shuffled epochs repeat, or are in order")
	}
	if !slices.Equal(slices.Sorted(slices.Values(e0)), plain) {
		t.Fatal("a shuffled epoch is not a permutation of the samples")
	}
	// Epoch 1 follows the seed's permutation of epoch 1.
	perm := source.NewPermutation(d.Len(), 8, 1)
	for p, v := range e1 {
		if v != perm.At(p)*10 {
			t.Fatalf("epoch 1 position %d: %d, want Get(NewPermutation(n, 8, 1).At(%d))", p, v, p)
		}
	}
}

func TestReadIndexedFrom(t *testing.T) {
	const n = 1000
	for _, k := range []int{0, 1, 500, 999, 1000, 2000} {
		d := &counting{n: n}
		r := source.ReadIndexed(d, source.ShuffleIndex(11))
		ctx := source.WithEpoch(context.Background(), 4)
		full, err := source.Collect(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		d.gets.Store(0)
		tail, err := source.Collect(ctx, r.From(k))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tail, full[min(k, n):]) {
			t.Fatalf("From(%d): not the tail of the epoch", k)
		}
		if got, want := d.gets.Load(), int64(max(n-k, 0)); got != want {
			t.Fatalf("From(%d): %d calls of Get, want %d", k, got, want)
		}
	}
}

var errBad = fmt.Errorf("bad sample: %w", tensorfeed.ErrBadData)

type flaky struct{ bad map[int]error }

func (f flaky) Len() int { return 100 }

func (f flaky) Get(i int) (int, error) {
	if err := f.bad[i]; err != nil {
		return 0, err
	}
	return i, nil
}

func TestReadIndexedErrors(t *testing.T) {
	ctx := context.Background()
	d := flaky{bad: map[int]error{5: errBad}}
	got, err := source.Collect(ctx, source.ReadIndexed(d))
	if !errors.Is(err, errBad) || len(got) != 5 {
		t.Fatalf("default policy: %d samples, %v", len(got), err)
	}
	skip := source.SkipBad(0.05)
	r := source.ReadIndexed(d, source.SkipIndexed(skip))
	got, err = source.Collect(ctx, r)
	if err != nil || len(got) != 99 || r.Skipped() != 1 {
		t.Fatalf("SkipBad: %d samples, %d skipped, %v", len(got), r.Skipped(), err)
	}
	other := errors.New("disk on fire")
	_, err = source.Collect(ctx, source.ReadIndexed(flaky{bad: map[int]error{7: other}}, source.SkipIndexed(skip)))
	if !errors.Is(err, other) {
		t.Fatalf("an error that is not bad data: %v", err)
	}
	many := map[int]error{}
	for i := range 10 {
		many[i*3] = errBad
	}
	_, err = source.Collect(ctx, source.ReadIndexed(flaky{bad: many}, source.SkipIndexed(source.SkipBad(0.05))))
	if !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("10%% bad under SkipBad(0.05): %v", err)
	}
}

func TestIndexSliceAndMap(t *testing.T) {
	d := source.IndexSlice([]int{1, 2, 3})
	if _, err := d.Get(3); !errors.Is(err, source.ErrIndex) {
		t.Fatalf("Get(3): %v", err)
	}
	if _, err := d.Get(-1); !errors.Is(err, source.ErrIndex) {
		t.Fatalf("Get(-1): %v", err)
	}
	m := source.MapIndexed(d, func(v int) (string, error) {
		if v == 2 {
			return "", errBad
		}
		return fmt.Sprint(v * v), nil
	})
	if m.Len() != 3 {
		t.Fatal(m.Len())
	}
	if v, err := m.Get(2); v != "9" || err != nil {
		t.Fatalf("Get(2) = %q, %v", v, err)
	}
	if _, err := m.Get(1); !errors.Is(err, errBad) {
		t.Fatalf("Get(1): %v", err)
	}
	if _, err := m.Get(5); !errors.Is(err, source.ErrIndex) {
		t.Fatalf("Get(5): %v", err)
	}
}

func BenchmarkPermutationAt(b *testing.B) {
	for _, n := range []int{1000, 60000, 1<<20 + 3} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := source.NewPermutation(n, 1, 2)
			b.ReportAllocs()
			sum, i := 0, 0
			for b.Loop() {
				sum += p.At(i)
				if i++; i == n {
					i = 0
				}
			}
			_ = sum
		})
	}
}

// BenchmarkFromMiddle measures the time to the first sample of a pass that
// starts at the middle of a shuffled epoch of a million samples: it does
// not depend on the position.
func BenchmarkFromMiddle(b *testing.B) {
	const n = 1 << 20
	d := &counting{n: n}
	for _, k := range []int{0, n / 2} {
		b.Run(fmt.Sprintf("position=%d", k), func(b *testing.B) {
			r := source.ReadIndexed(d, source.ShuffleIndex(1)).From(k)
			ctx := source.WithEpoch(context.Background(), 3)
			b.ReportAllocs()
			for b.Loop() {
				for _, err := range r.All(ctx) {
					if err != nil {
						b.Fatal(err)
					}
					break
				}
			}
		})
	}
}
