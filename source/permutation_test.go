package source_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

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
	perm := seeded.NewPermutation(d.Len(), 8, 1)
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
			p := seeded.NewPermutation(n, 1, 2)
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
