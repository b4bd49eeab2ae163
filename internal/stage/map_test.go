package stage_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestMap(t *testing.T) {
	tests := []struct {
		name string
		in   []int
		f    func(int) string
		want []string
	}{
		{"empty", nil, strconv.Itoa, nil},
		{"itoa", []int{3, 1, 2}, strconv.Itoa, []string{"3", "1", "2"}},
		{"stars", []int{0, 2}, func(n int) string { return strings.Repeat("*", n) }, []string{"", "**"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := stage.Map(source.Slice(tc.in), tc.f)
			for pass := range 2 {
				if got := values(t, r); !slices.Equal(got, tc.want) {
					t.Errorf("pass %d: got %q, want %q", pass, got, tc.want)
				}
			}
		})
	}
}

func TestMapChainOrder(t *testing.T) {
	r := stage.Map(stage.Map(source.Slice([]int{1, 2, 3}),
		func(x int) int { return x + 1 }),
		func(x int) int { return x * 10 })
	if got, want := values(t, r), []int{20, 30, 40}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestMapErr(t *testing.T) {
	errOdd := errors.New("odd")
	calls := 0
	r := stage.MapErr(source.Slice([]int{2, 4, 5, 6}), func(x int) (int, error) {
		calls++
		if x%2 == 1 {
			return -1, errOdd
		}
		return x / 2, nil
	})
	items := drain(t, t.Context(), r, 100)
	if len(items) != 3 {
		t.Fatalf("got %d items %v, want 2 samples and an error", len(items), items)
	}
	if items[0].v != 1 || items[1].v != 2 || items[0].err != nil || items[1].err != nil {
		t.Errorf("samples = %v, want 1, 2", items[:2])
	}
	last := items[2]
	if !errors.Is(last.err, errOdd) {
		t.Fatalf("error = %v, want errOdd", last.err)
	}
	if !strings.Contains(last.err.Error(), "sample 2") {
		t.Errorf("error %q does not say which sample", last.err)
	}
	if last.v != 0 {
		t.Errorf("error came with %d, want the zero value", last.v)
	}
	if calls != 3 {
		t.Errorf("f called %d times, want 3 (stop at the first error)", calls)
	}
}

func TestMapNilPanics(t *testing.T) {
	r := source.Slice([]int{1})
	for name, f := range map[string]func(){
		"Map":    func() { stage.Map[int, int](r, nil) },
		"MapErr": func() { stage.MapErr[int, int](r, nil) },
		"Filter": func() { stage.Filter(r, nil) },
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

// TestMapPanicReachesConsumer: Map runs f on the consumer's goroutine, so a
// panic unwinds through the consumer's loop and the upstream pass returns.
func TestMapPanicReachesConsumer(t *testing.T) {
	p := newProbe(10)
	r := stage.Map(p, func(x int) int {
		if x == 3 {
			panic("bad sample")
		}
		return x
	})
	func() {
		defer func() {
			if v := recover(); v != "bad sample" {
				t.Errorf("recovered %v, want the panic value", v)
			}
		}()
		for range r.All(t.Context()) {
		}
	}()
	if p.open() != 0 {
		t.Errorf("%d upstream passes still open after the panic", p.open())
	}
}
