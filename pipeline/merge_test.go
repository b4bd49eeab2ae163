package pipeline_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/readertest"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestMergeKeepsEveryElementAndEachInputsOrder(t *testing.T) {
	a := source.Slice(seq(0, 100))
	b := pipeline.From(source.Slice(seq(100, 150))).Buffered(2)
	c := source.Slice(seq(150, 300))
	m := pipeline.Merge(a, b, c)
	for pass := range 2 {
		got, err := collect(t, context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sorted(got), seq(0, 300)) {
			t.Fatalf("pass %d: not every element once: %v", pass, got)
		}
		for _, r := range [][2]int{{0, 100}, {100, 150}, {150, 300}} {
			var part []int
			for _, v := range got {
				if v >= r[0] && v < r[1] {
					part = append(part, v)
				}
			}
			if !slices.Equal(part, seq(r[0], r[1])) {
				t.Fatalf("pass %d: input %v out of order", pass, r)
			}
		}
	}
	if st := m.Stats(); st.Last().Name != "merge" || st.Last().Samples != 600 || st[0].Name != "source" {
		t.Fatalf("stats: %v", st)
	}
}

func TestMergeErrorsAndPanics(t *testing.T) {
	tests := []struct {
		name  string
		input source.Reader[int]
		check func(error) bool
	}{
		{"error", failAfter(5, errBoom), func(err error) bool { return errors.Is(err, errBoom) }},
		{"panic", panicAfter(5, "kaput"), func(err error) bool {
			var pe *source.PanicError
			return errors.As(err, &pe) && pe.Value == "kaput"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pipeline.Merge(tt.input, endless(), source.Slice(seq(0, 10)))
			got, err := collect(t, context.Background(), m)
			if !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			if len(got) < 5 {
				t.Fatalf("only %d elements before the error", len(got))
			}
		})
	}
}

func TestMergeStopEarly(t *testing.T) {
	m := pipeline.Merge(endless(), endless(), endless())
	readertest.BreakAfter(t, m, 50)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	n := 0
	for _, err := range m.All(ctx) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 50 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancelled merge ended with %v", last)
	}
}

func TestMergeConsumerPanicCleansUp(t *testing.T) {
	m := pipeline.Merge(endless(), endless())
	defer func() {
		if recover() != "consumer" {
			t.Fatal("panic lost")
		}
		// goleak in TestMain checks that the merge's goroutines are gone.
	}()
	for range m.All(context.Background()) {
		panic("consumer")
	}
}
