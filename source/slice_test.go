package source_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestSlice(t *testing.T) {
	for _, in := range [][]string{nil, {"a"}, {"a", "b", "c"}} {
		r := source.Slice(in)
		for pass := range 2 { // every pass starts over
			got, err := source.Collect(context.Background(), r)
			if err != nil || !slices.Equal(got, in) {
				t.Fatalf("pass %d: Collect = %v, %v; want %v", pass, got, err, in)
			}
		}
	}
}

func TestSliceEarlyBreak(t *testing.T) {
	n := 0
	for v, err := range source.Slice(lo.Range(10)).All(context.Background()) {
		if err != nil || v != n {
			t.Fatalf("sample %d = %d, %v", n, v, err)
		}
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("ranged %d samples, want 3", n)
	}
}

func TestSliceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, errs := fixture.Drain(ctx, source.Slice(lo.Range(10)))
	if len(got) != 0 || len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("got %v, %v; want no sample and one context.Canceled", got, errs)
	}
}

func TestSliceCancelMidPass(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const total = 10000
	var got []int
	var errs []error
	for v, err := range source.Slice(lo.Range(total)).All(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(errs) > 0 {
			t.Fatal("sample after the error")
		}
		got = append(got, v)
		if v == 10 {
			cancel()
		}
	}
	// The source looks at its context every few hundred samples: it stops
	// soon after the cancel, with the samples before in order.
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors = %v, want one context.Canceled", errs)
	}
	if len(got) >= total || !slices.Equal(got, lo.Range(len(got))) {
		t.Fatalf("got %d samples, want a strict prefix of the input", len(got))
	}
}
