package source_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestCollectAndCount(t *testing.T) {
	ctx := context.Background()
	got, err := source.Collect(ctx, source.Slice([]int{3, 1, 2}))
	if err != nil || !slices.Equal(got, []int{3, 1, 2}) {
		t.Fatalf("Collect = %v, %v", got, err)
	}
	n, err := source.Count(ctx, source.Slice(lo.Range(1234)))
	if err != nil || n != 1234 {
		t.Fatalf("Count = %d, %v", n, err)
	}

	got, err = source.Collect(ctx, sourcetest.FailAfter(fixture.Count(5), 5, errBoom))
	if !errors.Is(err, errBoom) || !slices.Equal(got, lo.Range(5)) {
		t.Fatalf("Collect of a failing pass = %v, %v; want 0..4 and errBoom", got, err)
	}
	n, err = source.Count(ctx, sourcetest.FailAfter(fixture.Count(5), 5, errBoom))
	if !errors.Is(err, errBoom) || n != 5 {
		t.Fatalf("Count of a failing pass = %d, %v; want 5 and errBoom", n, err)
	}
}

func TestFailYieldsOnce(t *testing.T) {
	calls := 0
	for v, err := range source.Fail[string](errBoom) {
		calls++
		if v != "" || !errors.Is(err, errBoom) {
			t.Fatalf("Fail yielded %q, %v", v, err)
		}
		// keep ranging: Fail must stop by itself
	}
	if calls != 1 {
		t.Fatalf("Fail yielded %d times, want 1", calls)
	}
}

func TestFuncStartsAPassPerCall(t *testing.T) {
	passes := 0
	r := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		passes++
		return source.Slice([]int{passes}).All(ctx)
	})
	for want := 1; want <= 3; want++ {
		got, _ := source.Collect(context.Background(), r)
		if !slices.Equal(got, []int{want}) {
			t.Fatalf("pass %d yielded %v", want, got)
		}
	}
}
