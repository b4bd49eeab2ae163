package stage

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/source"
)

// at returns a function giving r's state after n samples, for the inputs
// of joined.
func at[T any](r source.Reader[T]) func(epoch int, n int64) (source.State, error) {
	return func(epoch int, n int64) (source.State, error) { return source.StateOf(r, epoch, n) }
}

// joinedReader returns r as a Resumable reader of a stage that takes one
// sample from each of its inputs for every sample it yields (a zip): its
// state after n samples is {kind, every input's state after n}, and it
// resumes as rebuild(the inputs resumed from those states). inputs[i]
// returns the state of input i (source.StateOf on it); rebuild makes the
// stage again from the resumed inputs' states.
func joinedReader[T any](kind string, r source.Reader[T], inputs []func(epoch int, n int64) (source.State, error), rebuild func(in []source.State) (source.Reader[T], error)) source.Reader[T] {
	return &joined[T]{kind: kind, r: r, inputs: inputs, rebuild: rebuild}
}

type joined[T any] struct {
	kind    string
	r       source.Reader[T]
	inputs  []func(epoch int, n int64) (source.State, error)
	rebuild func(in []source.State) (source.Reader[T], error)
}

func (j *joined[T]) All(ctx context.Context) iter.Seq2[T, error] { return j.r.All(ctx) }

func (j *joined[T]) StateAt(epoch int, n int64) (source.State, error) {
	st := source.State{Kind: j.kind, In: make([]source.State, len(j.inputs))}
	for i, in := range j.inputs {
		s, err := in(epoch, n)
		if err != nil {
			return source.State{}, err
		}
		st.In[i] = s
	}
	return st, nil
}

// Resume checks that inputs of the same kind are at the same position
// (the inputs of a zip step together, so two readers of the same kind,
// order and length, such as the images and labels of one dataset, are
// always at the same place: one set back would replay its samples against
// the other's) and rebuilds the stage from the inputs' states.
func (j *joined[T]) Resume(st source.State) (source.Reader[T], error) {
	if err := st.Check(j.kind, 0, len(j.inputs)); err != nil {
		return nil, err
	}
	for i, a := range st.In {
		for k := i + 1; k < len(st.In); k++ {
			b := st.In[k]
			if sameForm(a, b) && !samePos(a, b) {
				return nil, &source.StateError{Want: j.kind, Got: st, Field: fmt.Sprintf("in[%d]", k),
					Why: fmt.Sprintf("input %d is at %s and input %d at %s, but zipped inputs of the same kind step together", i, posString(a), k, posString(b))}
			}
		}
	}
	return j.rebuild(st.In)
}

// sameForm reports whether a and b are states of readers of the same kinds
// with the same numbers of counters: states that must be equal when the
// readers step together.
func sameForm(a, b source.State) bool {
	if a.Kind != b.Kind || len(a.Pos) != len(b.Pos) || len(a.In) != len(b.In) {
		return false
	}
	for i := range a.In {
		if !sameForm(a.In[i], b.In[i]) {
			return false
		}
	}
	return true
}

// samePos reports whether two states of the same form have equal counters.
func samePos(a, b source.State) bool {
	if !slices.Equal(a.Pos, b.Pos) {
		return false
	}
	for i := range a.In {
		if !samePos(a.In[i], b.In[i]) {
			return false
		}
	}
	return true
}

// posString returns the counters of st and its inputs, "[3]<[7],[7]>".
func posString(st source.State) string {
	if len(st.In) == 0 {
		return fmt.Sprint(st.Pos)
	}
	in := make([]string, len(st.In))
	for i, s := range st.In {
		in[i] = posString(s)
	}
	return fmt.Sprint(st.Pos) + "<" + strings.Join(in, ",") + ">"
}

// sliceOf reports the elements every pass of r yields when r is a reader
// made by source.Slice (or resumed from one), which has an Elements
// method: stages that read such a reader beside another (Zip) index the
// slice instead of running a pass. The slice is r's own: do not modify it.
func sliceOf[T any](r source.Reader[T]) ([]T, bool) {
	if s, ok := r.(interface{ Elements() []T }); ok {
		return s.Elements(), true
	}
	return nil, false
}
