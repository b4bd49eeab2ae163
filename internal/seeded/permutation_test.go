package seeded_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/seeded"
)

// checkBijection fails unless p maps [0, n) onto [0, n) one to one and
// Index inverts At.
func checkBijection(t *testing.T, p *seeded.Permutation, n int) {
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
				p := seeded.NewPermutation(n, seed, epoch)
				if p.Len() != n {
					t.Fatalf("Len = %d, want %d", p.Len(), n)
				}
				checkBijection(t, &p, n)
			}
		}
	}
}

func order(p seeded.Permutation) []int {
	out := make([]int, p.Len())
	for i := range out {
		out[i] = p.At(i)
	}
	return out
}

func TestPermutationDiffersAndRepeats(t *testing.T) {
	const n = 1000
	base := order(seeded.NewPermutation(n, 1, 0))
	if !slices.Equal(base, order(seeded.NewPermutation(n, 1, 0))) {
		t.Fatal("the same (n, seed, epoch) gave two orders")
	}
	if slices.Equal(base, order(seeded.NewPermutation(n, 1, 1))) {
		t.Fatal("epochs 0 and 1 give the same order")
	}
	if slices.Equal(base, order(seeded.NewPermutation(n, 2, 0))) {
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
		orders[fmt.Sprint(order(seeded.NewPermutation(3, 5, e)))] = true
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
		p := seeded.NewPermutation(n, 9, e)
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
	p := seeded.NewPermutation(n, 9, 0)
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
	p := seeded.NewPermutation(60000, 3, 4)
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
	p := seeded.NewPermutation(3, 0, 0)
	for _, f := range []func(){
		func() { p.At(3) },
		func() { p.At(-1) },
		func() { p.Index(3) },
		func() { seeded.NewPermutation(-1, 0, 0) },
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

// The order of a permutation is pinned: checkpoints and the orders users
// recorded depend on it.
func TestPermutationPinned(t *testing.T) {
	p := seeded.NewPermutation(10, 42, 0)
	got := make([]int, p.Len())
	for i := range got {
		got[i] = p.At(i)
	}
	if want := []int{5, 7, 9, 1, 2, 0, 8, 6, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if i := p.Index(p.At(4)); i != 4 {
		t.Fatalf("Index(At(4)) = %d", i)
	}
}
