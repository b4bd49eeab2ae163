package pipeline_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// TestStepNamesAreStateKinds checks that the words of a checkpoint are the
// words of the report: every step's state kind (up to its parameters) is
// the name of a step in Stats, so a refused checkpoint names steps as the
// report does.
func TestStepNamesAreStateKinds(t *testing.T) {
	ints := make([]int, 100)
	for i := range ints {
		ints[i] = i
	}
	seqs := pipeline.Map(pipeline.From(source.Slice(ints)), func(i int) []int { return []int{i} })
	par := pipeline.ParallelMap(seqs, 2, func(s []int) ([]int, error) { return s, nil })
	pad := pipeline.PadSeqs(pipeline.Batch(par.Shuffle(10, 1).Take(90).Skip(1), 8, batch.Keep), 0, 0)
	en := pipeline.Enumerate(pipeline.FanIn([]source.Reader[batch.Seqs[int]]{pad}, 2))
	z := pipeline.Zip2(en, source.Constant(1, -1), pipeline.Shortest())
	p := z.Buffered(2).Repeat(1).Shard(1, 0)

	st, err := p.StateAt(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Stats() {
		names = append(names, s.Name)
	}
	var walk func(st source.State)
	walk = func(st source.State) {
		if len(st.In) == 0 {
			return // a reader: its kind names the data, its step is "source"
		}
		word, _, _ := strings.Cut(st.Kind, "(")
		if !slices.Contains(names, word) {
			t.Errorf("state kind %q: no step named %q (steps: %v)", st.Kind, word, names)
		}
		for _, in := range st.In {
			walk(in)
		}
	}
	walk(st)
	t.Logf("state shape: %s", st.Shape())
}

// TestCheckpointOfOtherParametersNamesThem resumes a checkpoint into a
// pipeline that differs in one parameter of one step: the error names the
// step and the parameter, not only two fingerprints.
func TestCheckpointOfOtherParametersNamesThem(t *testing.T) {
	build := func(seed uint64, take int) *pipeline.Pipe[int] {
		ints := make([]int, 100)
		return pipeline.Map(pipeline.From(source.Slice(ints)).Shuffle(10, seed).Take(take), func(i int) int { return i })
	}
	c, err := build(1, 90).CheckpointAt(t.Context(), 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    *pipeline.Pipe[int]
		want string
	}{
		{build(2, 90), "step shuffle differs in seed: 2 here, 1 in the checkpoint"},
		{build(1, 80), "step take differs in parameter 1: 80 here, 90 in the checkpoint"},
		{pipeline.Map(pipeline.From(source.Slice(make([]int, 100))).Skip(5).Take(90), func(i int) int { return i }), "step skip(5) here is shuffle(10,seed=1) in the checkpoint"},
		{pipeline.From(source.Slice(make([]int, 100))).Take(90), "(state does not match the reader): other steps; it has map<take(90)<shuffle(10,seed=1)<slice(100)>>>, this pipeline has take(90)<slice(100)>"},
	} {
		_, err := tc.p.EpochsFrom(t.Context(), c, 1)
		if !errors.Is(err, pipeline.ErrCheckpoint) || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("EpochsFrom: %v\nwant an error with %q", err, tc.want)
		}
	}
}
