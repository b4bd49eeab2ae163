package stage

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Take returns a reader whose passes yield at most the first n samples of a
// pass of r: PaddlePaddle's firstn. The pass of r is stopped as soon as the
// n-th sample has been yielded, so Take ends endless readers. Take(r, 0)
// yields nothing and does not start a pass of r. It panics if n < 0.
func Take[T any](r source.Reader[T], n int) source.Reader[T] {
	if n < 0 {
		panic("stage.Take: negative count")
	}
	return &take[T]{r: r, n: n}
}

// Skip returns a reader whose passes drop the first n samples of a pass of r
// and yield the rest. An error from r is passed on even while skipping.
// It panics if n < 0.
func Skip[T any](r source.Reader[T], n int) source.Reader[T] {
	if n < 0 {
		panic("stage.Skip: negative count")
	}
	return &skip[T]{r: r, n: n, kind: fmt.Sprintf("skip(%d)", n)}
}

// take yields samples from a count of done (a resumed pass) up to n.
type take[T any] struct {
	r       source.Reader[T]
	n, done int
}

func (t *take[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		left := t.n - t.done
		if left <= 0 {
			return
		}
		i := 0
		for s, err := range t.r.All(ctx) {
			if err != nil {
				yieldErr(yield, err)
				return
			}
			if !yield(s, nil) {
				return
			}
			if i++; i == left {
				return
			}
		}
	}
}

func (t *take[T]) kind() string { return fmt.Sprintf("take(%d)", t.n) }

// StateAt returns {take(n), [count], r's state}.
func (t *take[T]) StateAt(epoch int, n int64) (source.State, error) {
	in, err := source.StateOf(t.r, epoch, n)
	return source.State{Kind: t.kind(), Pos: []int64{int64(t.done) + n}, In: []source.State{in}}, err
}

// Resume continues the count and r from st.
func (t *take[T]) Resume(st source.State) (source.Reader[T], error) {
	r, err := resumeInput(t.r, st, t.kind(), 1)
	if err != nil {
		return nil, err
	}
	return &take[T]{r: r, n: t.n, done: int(st.Pos[0])}, nil
}

// skip drops the first n samples of r; a resumed one has n = 0 and keeps
// its kind.
type skip[T any] struct {
	r    source.Reader[T]
	n    int
	kind string
}

func (k *skip[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		i := 0
		for s, err := range k.r.All(ctx) {
			if err != nil {
				yieldErr(yield, err)
				return
			}
			if i < k.n {
				i++
				continue
			}
			if !yield(s, nil) {
				return
			}
		}
	}
}

// StateAt returns {skip(n), r's state after n more}.
func (k *skip[T]) StateAt(epoch int, n int64) (source.State, error) {
	in, err := source.StateOf(k.r, epoch, int64(k.n)+n)
	return source.State{Kind: k.kind, In: []source.State{in}}, err
}

// Resume continues r from st; nothing is dropped any more.
func (k *skip[T]) Resume(st source.State) (source.Reader[T], error) {
	r, err := resumeInput(k.r, st, k.kind, 0)
	if err != nil {
		return nil, err
	}
	return &skip[T]{r: r, kind: k.kind}, nil
}
