package pipeline_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

func TestStepsKeepTheContract(t *testing.T) {
	id := func(i int) int { return i }
	s := sink.New(5, []sink.Field[int]{sink.Int64("x", nil, func(v int, dst []int64) { dst[0] = int64(v) })}, nil)
	for name, check := range map[string]func() error{
		"From": func() error {
			return sourcetest.TestStage(func(r source.Reader[int]) source.Reader[int] { return pipeline.From(r) }, id)
		},
		"Tensorize": func() error {
			return sourcetest.TestStage(func(r source.Reader[int]) source.Reader[*tensor.Batch] {
				return pipeline.Tensorize(pipeline.From(r).Buffered(2), s, batch.Pad).Buffered(2)
			}, id)
		},
		"Zip3": func() error { // the stage's reader first
			return sourcetest.TestStage(func(r source.Reader[int]) source.Reader[stage.Tuple3[int, string, int]] {
				return pipeline.Zip3(pipeline.From(r), source.Constant("x", -1), pipeline.From(source.Constant(1, -1)), stage.Shortest())
			}, id)
		},
		"Zip4": func() error { // the stage's reader last, prefetched
			return sourcetest.TestStage(func(r source.Reader[int]) source.Reader[stage.Tuple4[int, string, bool, int]] {
				return pipeline.Zip4(pipeline.From(source.Constant(1, -1)), source.Constant("x", -1), source.Constant(true, -1),
					pipeline.From(r).Buffered(2), stage.Shortest())
			}, id)
		},
		"PadSeqs": func() error {
			return sourcetest.TestStage(func(r source.Reader[[]int]) source.Reader[batch.Seqs[int]] {
				return pipeline.PadSeqs(pipeline.Batch(pipeline.From(r), 3, batch.Keep, batch.Recycling()), 0, -1)
			}, func(i int) []int { return make([]int, i%4) })
		},
		"FanIn": func() error {
			return sourcetest.TestStage(func(r source.Reader[int]) source.Reader[int] {
				return pipeline.FanIn([]source.Reader[int]{r, count(7)}, 4)
			}, id, sourcetest.Nondeterministic())
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestFanIn(t *testing.T) {
	a := pipeline.From(count(50)).Named("a")
	p := pipeline.FanIn([]source.Reader[int]{a, source.Slice(seq(50, 80))}, 2)
	got, err := collect(t, t.Context(), p)
	if err != nil || !slices.Equal(sorted(got), seq(0, 80)) {
		t.Fatalf("got %v, %v", got, err)
	}
	var fromA []int
	for _, v := range got {
		if v < 50 {
			fromA = append(fromA, v)
		}
	}
	if !slices.Equal(fromA, seq(0, 50)) {
		t.Error("an input's own order was not kept")
	}
	if names := p.Stats(); len(names) != 2 || names[0].Name != "a" || names[1].Name != "fan-in" {
		t.Errorf("stats %v", names)
	}
	_, err = collect(t, t.Context(), pipeline.FanIn([]source.Reader[int]{endless(), failAfter(5, errBoom)}, 4))
	if !errors.Is(err, errBoom) {
		t.Fatalf("err %v, want %v", err, errBoom)
	}
}
