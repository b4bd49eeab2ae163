package pipeline_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

func TestParallelMap(t *testing.T) {
	square := func(x int) (int, error) { return x * x, nil }
	want := make([]int, 200)
	for i := range want {
		want[i] = i * i
	}
	for _, workers := range []int{1, 3, 8} {
		p := pipeline.ParallelMap(pipeline.From(count(200)), workers, square)
		got, err := collect(t, context.Background(), p)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%d workers: %v, %v", workers, got, err)
		}
	}
	p := pipeline.ParallelMap(pipeline.From(count(200)), 4, square, stage.Unordered())
	got, err := collect(t, context.Background(), p)
	if err != nil || !slices.Equal(sorted(got), want) {
		t.Fatalf("unordered: %v, %v", got, err)
	}
	if p.Stats().Last().Name != "parallel-map" || p.Stats().Last().Samples != 200 {
		t.Fatalf("stats: %v", p.Stats())
	}
}

func TestParallelMapFailures(t *testing.T) {
	id := func(x int) (int, error) { return x, nil }
	tests := []struct {
		name  string
		p     *pipeline.Pipe[int]
		check func(error) bool
	}{
		{"panic in f", pipeline.ParallelMap(pipeline.From(endless()), 4, func(x int) (int, error) {
			if x == 50 {
				panic("worker")
			}
			return x, nil
		}), func(err error) bool {
			var pe *tensorfeed.PanicError
			return errors.As(err, &pe) && pe.Value == "worker"
		}},
		{"error in f", pipeline.ParallelMap(pipeline.From(endless()), 4, func(x int) (int, error) {
			if x == 50 {
				return 0, errBoom
			}
			return x, nil
		}), func(err error) bool { return errors.Is(err, errBoom) }},
		{"upstream error", pipeline.ParallelMap(pipeline.From(failAfter(50, errBoom)), 4, id),
			func(err error) bool { return errors.Is(err, errBoom) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := collect(t, context.Background(), tt.p)
			if !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			if len(got) > 50 || !slices.Equal(got, seq(0, len(got))) {
				t.Fatalf("before the error: %v", got)
			}
			if tt.p.Stats().Last().Errors != 1 {
				t.Fatalf("error not counted: %v", tt.p.Stats())
			}
		})
	}
}

func TestParallelMapStopEarly(t *testing.T) {
	p := pipeline.ParallelMap(pipeline.From(endless()), 4, func(x int) (int, error) { return x, nil })
	for v := range p.All(context.Background()) {
		if v == 100 {
			break
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	for v, err := range p.All(ctx) {
		if err != nil {
			last = err
		} else if v == 100 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancel: %v", last)
	}
}
