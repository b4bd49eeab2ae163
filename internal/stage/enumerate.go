package stage

import (
	"context"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Numbered is a sample with its position in the pass that produced it.
type Numbered[T any] struct {
	Index int // 0 for the first sample of every pass
	Value T
}

// Enumerate returns a reader that pairs every sample of r with its index in
// the pass, counting from 0 on every pass. Put it before Shuffle to keep
// each sample's original position, or before ParallelMap to derive
// per-sample randomness from the index (source.NewRand(seed, epoch, index)).
func Enumerate[T any](r source.Reader[T]) source.Reader[Numbered[T]] {
	return &enumerate[T]{r: r}
}

// enumerate numbers the samples of r from `from`: a resumed pass goes on
// with the index where it stopped.
type enumerate[T any] struct {
	r    source.Reader[T]
	from int
}

func (e *enumerate[T]) All(ctx context.Context) iter.Seq2[Numbered[T], error] {
	return func(yield func(Numbered[T], error) bool) {
		i := e.from
		for s, err := range e.r.All(ctx) {
			if err != nil {
				yieldErr(yield, err)
				return
			}
			if !yield(Numbered[T]{Index: i, Value: s}, nil) {
				return
			}
			i++
		}
	}
}

// StateAt returns {enumerate, [next index], r's state}.
func (e *enumerate[T]) StateAt(epoch int, n int64) (source.State, error) {
	in, err := source.StateOf(e.r, epoch, n)
	return source.State{Kind: "enumerate", Pos: []int64{int64(e.from) + n}, In: []source.State{in}}, err
}

// Resume continues the numbering and r from st.
func (e *enumerate[T]) Resume(st source.State) (source.Reader[Numbered[T]], error) {
	r, err := resumeInput(e.r, st, "enumerate", 1)
	if err != nil {
		return nil, err
	}
	return &enumerate[T]{r: r, from: int(st.Pos[0])}, nil
}
