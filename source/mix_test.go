package source_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// mixPart returns a part whose sample j is k*1_000_000 + j, so the part and
// index of any sample of a mixture can be read off it.
func mixPart(k, n int) source.Indexed[int] {
	s := make([]int, n)
	for j := range s {
		s[j] = k*1_000_000 + j
	}
	return source.IndexSlice(s)
}

// TestMixExactProportions checks every part's count over the epoch
// against length*w/sum(w) (within 1), that each part's items come in
// order of their index (j mod Len), and that the proportions hold over
// every prefix to within a few items (the parts are spread evenly).
func TestMixExactProportions(t *testing.T) {
	for _, tc := range []struct {
		weights []float64
		lens    []int
		length  int
	}{
		{[]float64{0.7, 0.3}, []int{100, 100}, 1000},
		{[]float64{0.7, 0.3}, []int{60, 7}, 0},
		{[]float64{1, 1, 1}, []int{10, 20, 30}, 1001},
		{[]float64{5, 1, 3, 0.25, 2}, []int{50, 3, 1000, 1, 9}, 9973},
		{[]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, []int{7, 7, 7, 7, 7, 7, 7}, 12345},
		{[]float64{1}, []int{5}, 17},
	} {
		t.Run(fmt.Sprint(tc.weights, tc.lens, tc.length), func(t *testing.T) {
			parts := make([]source.Indexed[int], len(tc.lens))
			for k, n := range tc.lens {
				parts[k] = mixPart(k, n)
			}
			m := source.Mix(tc.length, tc.weights, parts...)
			n := m.Len()
			sum := 0.0
			for _, w := range tc.weights {
				sum += w
			}
			if tc.length == 0 { // Grain's length: no part repeats
				want := math.Inf(1)
				for k, l := range tc.lens {
					want = min(want, float64(l)*sum/tc.weights[k])
				}
				if n != int(want) {
					t.Fatalf("Len() = %d, want %d", n, int(want))
				}
			} else if n != tc.length {
				t.Fatalf("Len() = %d, want %d", n, tc.length)
			}
			counts := make([]int, len(parts))
			worst := 0.0
			for i := range n {
				v, err := m.Get(i)
				if err != nil {
					t.Fatal(err)
				}
				k, j := v/1_000_000, v%1_000_000
				if want := counts[k] % tc.lens[k]; j != want {
					t.Fatalf("item %d is sample %d of part %d, want %d", i, j, k, want)
				}
				counts[k]++
				for q := range parts {
					worst = max(worst, math.Abs(float64(counts[q])-float64(i+1)*tc.weights[q]/sum))
				}
			}
			for k, c := range counts {
				if d := math.Abs(float64(c) - float64(n)*tc.weights[k]/sum); d >= 1 {
					t.Errorf("part %d has %d of %d items, %.3f from its weight", k, c, n, d)
				}
			}
			// A halving per level adds under 1 of drift: log2(7) < 3.
			if worst >= 4 {
				t.Errorf("a prefix is %.2f items from its proportions", worst)
			}
			if tc.length == 0 {
				for k, c := range counts {
					if c > tc.lens[k] {
						t.Errorf("default length: part %d gives %d items from %d samples", k, c, tc.lens[k])
					}
				}
			}
			if _, err := m.Get(n); !errors.Is(err, source.ErrIndex) {
				t.Errorf("Get(Len()) = %v, want ErrIndex", err)
			}
			if _, err := m.Get(-1); !errors.Is(err, source.ErrIndex) {
				t.Errorf("Get(-1) = %v, want ErrIndex", err)
			}
		})
	}
}

// TestMixShuffledShardedResume reads a mixture shuffled by index and split
// between ranks: every epoch has the exact proportions, the ranks' shares
// are disjoint and cover it, and a run stopped at item k with 3 ranks
// resumes with 2 ranks to exactly the rest of the epoch.
func TestMixShuffledShardedResume(t *testing.T) {
	mix := source.Mix(1000, []float64{0.7, 0.3}, mixPart(0, 600), mixPart(1, 50))
	ctx := source.WithEpoch(context.Background(), 1)
	full, err := source.Collect(ctx, source.ReadIndexed(mix, source.ShuffleIndex(9)))
	if err != nil {
		t.Fatal(err)
	}
	if n := countPart(full, 1); n != 300 {
		t.Fatalf("part 1 has %d of 1000, want 300", n)
	}
	again, _ := source.Collect(ctx, source.ReadIndexed(mix, source.ShuffleIndex(9)))
	if !slices.Equal(full, again) {
		t.Fatal("two passes of epoch 1 differ")
	}
	other, _ := source.Collect(source.WithEpoch(context.Background(), 2), source.ReadIndexed(mix, source.ShuffleIndex(9)))
	if slices.Equal(full, other) {
		t.Fatal("epochs 1 and 2 have the same order")
	}

	// 3 ranks step together for 100 items each, then stop.
	var seen []int
	var st source.State
	for rank := range 3 {
		r := source.ReadIndexed(mix, source.ShuffleIndex(9), source.ShardIndex(3, rank, source.PadShards))
		got := sourcetest.BreakAfter(t, readEpoch(r, 1), 100)
		seen = append(seen, got...)
		if st, err = r.StateAt(1, 100); err != nil {
			t.Fatal(err)
		}
	}
	// Resume with 2 ranks.
	for rank := range 2 {
		r := source.ReadIndexed(mix, source.ShuffleIndex(9), source.ShardIndex(2, rank, source.PadShards))
		rest, err := r.Resume(st)
		if err != nil {
			t.Fatal(err)
		}
		got, err := source.Collect(ctx, rest)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, got...)
	}
	slices.Sort(seen)
	want := slices.Clone(full)
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Fatalf("3 ranks then 2 read %d items, not the epoch's %d once each", len(seen), len(want))
	}
	// The straight tail from position 300 is what the resume reads.
	r := source.ReadIndexed(mix, source.ShuffleIndex(9))
	rest, err := r.Resume(st)
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := source.Collect(ctx, rest)
	if !slices.Equal(tail, full[300:]) {
		t.Fatal("resume at 300 is not the tail of the straight pass")
	}
}

// readEpoch pins r's passes to epoch e.
func readEpoch[T any](r source.Reader[T], e int) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return r.All(source.WithEpoch(ctx, e))
	})
}

func countPart(items []int, k int) int {
	n := 0
	for _, v := range items {
		if v/1_000_000 == k {
			n++
		}
	}
	return n
}

// TestMixContract runs the reader contract over a mixture read by index.
func TestMixContract(t *testing.T) {
	mix := source.Mix(257, []float64{2, 1, 1}, mixPart(0, 100), mixPart(1, 10), mixPart(2, 1))
	if err := sourcetest.TestReader(source.ReadIndexed(mix, source.ShuffleIndex(3))); err != nil {
		t.Fatal(err)
	}
}

// failing is a part whose Get fails at one index with bad data.
type failing struct {
	source.Indexed[int]
	at int
}

func (f failing) Get(i int) (int, error) {
	if i == f.at {
		return 0, fmt.Errorf("record %d: %w", i, tensorfeed.ErrBadData)
	}
	return f.Indexed.Get(i)
}

// TestMixErrors: an error of a part's Get is the error of the item, once,
// and ends the pass; an empty part with a share fails its items with
// ErrIndex; programmer's errors panic.
func TestMixErrors(t *testing.T) {
	mix := source.Mix(100, []float64{1, 1}, mixPart(0, 100), failing{mixPart(1, 100), 7})
	got, err := source.Collect(context.Background(), source.ReadIndexed(mix))
	if !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("pass ended with %v, want the part's error", err)
	}
	if countPart(got, 1) != 7 {
		t.Fatalf("the pass yielded %d items of part 1 before the error, want 7", countPart(got, 1))
	}
	if err := sourcetest.TestReader(source.ReadIndexed(mix)); err != nil {
		t.Fatal(err)
	}

	empty := source.Mix(10, []float64{1, 1}, mixPart(0, 5), mixPart(1, 0))
	if _, err := source.Collect(context.Background(), source.ReadIndexed(empty)); !errors.Is(err, source.ErrIndex) {
		t.Fatalf("mixture with an empty part: %v, want ErrIndex", err)
	}
	if n := source.Mix(0, []float64{1, 1}, mixPart(0, 5), mixPart(1, 0)).Len(); n != 0 {
		t.Fatalf("default length with an empty part = %d, want 0", n)
	}

	for name, f := range map[string]func(){
		"no part":         func() { source.Mix[int](10, nil) },
		"weights":         func() { source.Mix(10, []float64{1}, mixPart(0, 1), mixPart(1, 1)) },
		"zero weight":     func() { source.Mix(10, []float64{1, 0}, mixPart(0, 1), mixPart(1, 1)) },
		"NaN weight":      func() { source.Mix(10, []float64{math.NaN()}, mixPart(0, 1)) },
		"negative length": func() { source.Mix(-1, []float64{1}, mixPart(0, 1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestMixIdentity: the identity names the counts, so a checkpoint of a
// mixture is refused by a mixture of other proportions, and includes the
// parts' own identities.
func TestMixIdentity(t *testing.T) {
	ctx := context.Background()
	a, _ := source.Mix(100, []float64{0.7, 0.3}, mixPart(0, 10), mixPart(1, 10)).(source.Identifier).Identity(ctx)
	b, _ := source.Mix(100, []float64{0.6, 0.4}, mixPart(0, 10), mixPart(1, 10)).(source.Identifier).Identity(ctx)
	if a == b || a != "mix[70 30]" {
		t.Fatalf("identities %q and %q", a, b)
	}
	r := source.ReadIndexed(source.Mix(10, []float64{1, 1}, mixPart(0, 10), mixPart(1, 10)))
	if id, _ := r.Identity(ctx); id != "mix[5 5]" {
		t.Fatalf("reader identity %q", id)
	}
}

// BenchmarkMixGet reads every item of a mixture of 8 parts by index: the
// cost of locating an item's part (3 halvings) and of the part's Get.
func BenchmarkMixGet(b *testing.B) {
	parts := make([]source.Indexed[int], 8)
	for k := range parts {
		parts[k] = mixPart(k, 1000*(k+1))
	}
	m := source.Mix(100_000, []float64{1, 2, 3, 4, 5, 6, 7, 8}, parts...)
	b.ReportAllocs()
	sum := 0
	for i := 0; b.Loop(); i++ {
		v, _ := m.Get(i % 100_000)
		sum += v
	}
	_ = sum
}
