package gostreams_test

import (
	"testing"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/flow"

	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/pipeline/gostreams"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestStepsKeepTheContract(t *testing.T) {
	id := func(i int) int { return i }
	for name, stage := range map[string]func(source.Reader[int]) source.Reader[int]{
		"Tee": func(r source.Reader[int]) source.Reader[int] {
			return gostreams.Tee(pipeline.From(r), func(int) error { return nil })
		},
		"Via": func(r source.Reader[int]) source.Reader[int] {
			return gostreams.Via[int, int](pipeline.From(r), func(s streams.Source) streams.Outlet {
				return s.Via(flow.NewMap(gostreams.Guard(func(x int) (int, error) { return 2 * x, nil }), 1))
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := sourcetest.TestStage(stage, id); err != nil {
				t.Fatal(err)
			}
		})
	}
}
