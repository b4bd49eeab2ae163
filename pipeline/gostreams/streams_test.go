package gostreams_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/extension"
	"github.com/reugn/go-streams/flow"
	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/pipeline/gostreams"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestTo(t *testing.T) {
	ctx := context.Background()
	src := gostreams.To(ctx, fixture.Count(100))
	sink := newCollectSink(-1)
	src.Via(flow.NewMap(func(x int) int { return 2 * x }, 1)).To(sink)
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 100 || sink.got[99] != 198 {
		t.Fatalf("sink got %d elements", len(sink.got))
	}

	// Out, ranged directly.
	src = gostreams.To(ctx, fixture.Count(5))
	var got []int
	for e := range src.Out() {
		got = append(got, e.(int))
	}
	if !slices.Equal(got, lo.Range(5)) || src.Err() != nil {
		t.Fatalf("Out: %v, %v", got, src.Err())
	}
}

func TestToErrors(t *testing.T) {
	ctx := context.Background()
	src := gostreams.To(ctx, sourcetest.FailAfter(fixture.Count(10), 10, errBoom))
	sink := newCollectSink(-1)
	src.Via(flow.NewPassThrough()).To(sink)
	if err := src.Err(); !errors.Is(err, errBoom) || len(sink.got) != 10 {
		t.Fatalf("error: %v after %d elements", err, len(sink.got))
	}

	src = gostreams.To(ctx, panicAfter(3, "p"))
	sink = newCollectSink(-1)
	src.Via(flow.NewPassThrough()).To(sink)
	var pe *tensorfeed.PanicError
	if err := src.Err(); !errors.As(err, &pe) || len(sink.got) != 3 {
		t.Fatalf("panic: %v after %d elements", err, len(sink.got))
	}

	// Cancelling the context ends an endless source and closes the graph.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src = gostreams.To(cctx, fixture.Endless(nil))
	n := 0
	for range src.Via(flow.NewMap(func(x int) int { return x }, 2)).Out() {
		if n++; n == 100 {
			cancel()
		}
	}
	if err := src.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}

	// Err before the start: nil, and the source can no longer start.
	src = gostreams.To(ctx, fixture.Count(3))
	if src.Err() != nil {
		t.Fatal("Err of an unstarted source")
	}
}

func TestToMisuse(t *testing.T) {
	src := gostreams.To(context.Background(), fixture.Count(3))
	f := flow.NewPassThrough()
	src.Via(f)
	defer func() {
		drainFlow(f)
		if recover() == nil {
			t.Fatal("Out after Via did not panic")
		}
	}()
	src.Out()
}

func drainFlow(f streams.Outlet) {
	for range f.Out() {
	}
}

// chanSource returns an open function for From that feeds elems into
// a go-streams ChanSource and closes it when done or when ctx ends.
func chanSource(elems ...any) func(ctx context.Context) streams.Outlet {
	return func(ctx context.Context) streams.Outlet {
		ch := make(chan any)
		go func() {
			defer close(ch)
			for _, e := range elems {
				select {
				case ch <- e:
				case <-ctx.Done():
					return
				}
			}
		}()
		return extension.NewChanSource(ch)
	}
}

func TestFrom(t *testing.T) {
	tests := []struct {
		name  string
		elems []any
		want  []int
		check func(error) bool
	}{
		{"ints", []any{1, 2, 3}, []int{1, 2, 3}, func(err error) bool { return err == nil }},
		{"empty", nil, nil, func(err error) bool { return err == nil }},
		{"error element", []any{1, errBoom, 3}, []int{1}, func(err error) bool { return errors.Is(err, errBoom) }},
		{"wrong type", []any{1, 2, "three", 4}, []int{1, 2}, func(err error) bool {
			return errors.Is(err, gostreams.ErrType) && strings.Contains(err.Error(), "element 2 is string, want int")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := gostreams.From[int](chanSource(tt.elems...))
			got, err := fixture.Pass(t, context.Background(), p)
			if !tt.check(err) || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, %v", got, err)
			}
		})
	}
}

func TestFromStopEarly(t *testing.T) {
	// An endless graph: reader -> go-streams Map -> go-streams Filter.
	p := gostreams.From[int](func(ctx context.Context) streams.Outlet {
		return gostreams.To(ctx, fixture.Endless(nil)).
			Via(flow.NewMap(func(x int) int { return x * 3 }, 2)).
			Via(flow.NewFilter(func(x int) bool { return x%2 == 0 }, 1))
	})
	n := 0
	for v, err := range p.All(context.Background()) {
		if err != nil || v%6 != 0 {
			t.Fatalf("got %d, %v", v, err)
		}
		if n++; n == 100 {
			break
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	n = 0
	for _, err := range p.All(ctx) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 100 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancel: %v", last)
	}
}

func TestFromReportsSourceErrors(t *testing.T) {
	p := gostreams.From[string](func(ctx context.Context) streams.Outlet {
		return gostreams.To(ctx, sourcetest.FailAfter(fixture.Count(4), 4, errBoom)).Via(flow.NewMap(func(x int) string { return fmt.Sprint(x) }, 1))
	})
	got, err := fixture.Pass(t, context.Background(), p)
	if !errors.Is(err, errBoom) || !slices.Equal(got, []string{"0", "1", "2", "3"}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestVia(t *testing.T) {
	double := func(s streams.Source) streams.Outlet {
		return s.Via(flow.NewMap(gostreams.Guard(func(x int) (int, error) { return 2 * x, nil }), 1))
	}
	p := gostreams.Via[int, int](pipeline.From(fixture.Count(100)), double)
	for range 2 {
		got, err := fixture.Pass(t, context.Background(), p)
		if err != nil || len(got) != 100 || got[99] != 198 || !slices.IsSorted(got) {
			t.Fatalf("got %v, %v", got, err)
		}
	}
	if st := p.Stats(); st.Last().Name != "via" || st.Last().Samples != 200 || st[0].Samples != 200 {
		t.Fatalf("stats: %v", st)
	}
}

func TestViaFailures(t *testing.T) {
	guarded := func(f func(int) (int, error)) func(streams.Source) streams.Outlet {
		return func(s streams.Source) streams.Outlet { return s.Via(flow.NewMap(gostreams.Guard(f), 1)) }
	}
	isPanic := func(v any) func(error) bool {
		return func(err error) bool {
			var pe *tensorfeed.PanicError
			return errors.As(err, &pe) && pe.Value == v
		}
	}
	tests := []struct {
		name  string
		p     *pipeline.Pipe[int]
		check func(error) bool
	}{
		{"upstream error", gostreams.Via[int, int](pipeline.From(sourcetest.FailAfter(fixture.Count(10), 10, errBoom)), guarded(func(x int) (int, error) { return x, nil })),
			func(err error) bool { return errors.Is(err, errBoom) }},
		{"upstream panic", gostreams.Via[int, int](pipeline.From(panicAfter(10, "up")), guarded(func(x int) (int, error) { return x, nil })),
			isPanic("up")},
		{"flow error", gostreams.Via[int, int](pipeline.From(fixture.Endless(nil)), guarded(func(x int) (int, error) {
			if x == 10 {
				return 0, errBoom
			}
			return x, nil
		})), func(err error) bool { return errors.Is(err, errBoom) }},
		{"flow panic", gostreams.Via[int, int](pipeline.From(fixture.Endless(nil)), guarded(func(x int) (int, error) {
			if x == 10 {
				panic("in flow")
			}
			return x, nil
		})), isPanic("in flow")},
		{"panic in a chain of guarded maps", gostreams.Via[int, int](pipeline.From(fixture.Endless(nil)), func(s streams.Source) streams.Outlet {
			first := flow.NewMap(gostreams.Guard(func(x int) (int, error) {
				if x == 10 {
					panic("first")
				}
				return x, nil
			}), 1)
			return s.Via(first).Via(flow.NewMap(gostreams.Guard(func(x int) (int, error) { return x, nil }), 1))
		}), isPanic("first")},
		{"wrong output type", gostreams.Via[int, int](pipeline.From(fixture.Count(20)), func(s streams.Source) streams.Outlet {
			return s.Via(flow.NewMap(func(x int) any {
				if x == 10 {
					return int64(x)
				}
				return x
			}, 1))
		}), func(err error) bool { return errors.Is(err, gostreams.ErrType) }},
		{"wrong input type for Guard", gostreams.Via[int, int](pipeline.From(fixture.Count(20)), func(s streams.Source) streams.Outlet {
			return s.Via(flow.NewMap(gostreams.Guard(func(s string) (int, error) { return len(s), nil }), 1))
		}), func(err error) bool { return errors.Is(err, gostreams.ErrType) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fixture.Pass(t, context.Background(), tt.p)
			if !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			if !slices.Equal(got, lo.Range(len(got))) || len(got) > 10 {
				t.Fatalf("before the error: %v", got)
			}
		})
	}
}

func TestViaStopEarly(t *testing.T) {
	p := gostreams.Via[int, int](pipeline.From(fixture.Endless(nil)).Buffered(2), func(s streams.Source) streams.Outlet {
		return s.Via(flow.NewMap(gostreams.Guard(func(x int) (int, error) { return x, nil }), 3))
	})
	sourcetest.BreakAfter(t, p, 52)
	sourcetest.CancelAfter(t, p, 52)
}

func TestNilElements(t *testing.T) {
	// nil is a valid element of an interface type, and a wrong one for int.
	type stringer = fmt.Stringer
	p := gostreams.From[stringer](chanSource(nil, nil))
	got, err := fixture.Pass(t, context.Background(), p)
	if err != nil || len(got) != 2 || got[0] != nil {
		t.Fatalf("interface: %v, %v", got, err)
	}
	_, err = fixture.Pass(t, context.Background(), gostreams.From[int](chanSource(1, nil)))
	if !errors.Is(err, gostreams.ErrType) || !strings.Contains(err.Error(), "element 1 is <nil>") {
		t.Fatalf("int: %v", err)
	}
	tee := gostreams.Tee(pipeline.From(source.Slice([]stringer{nil, nil, nil})), func(stringer) error { return nil })
	if n, err := source.Count(context.Background(), tee); n != 3 || err != nil {
		t.Fatalf("tee of nil interfaces: %d, %v", n, err)
	}
}

func TestFromOpenReturnsNil(t *testing.T) {
	p := gostreams.From[int](func(context.Context) streams.Outlet { return nil })
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	for range p.All(context.Background()) {
	}
}
