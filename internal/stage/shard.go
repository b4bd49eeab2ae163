package stage

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Shard returns part index of count parts of every pass of r, for
// data-parallel training where each worker reads its own part (MXNet's
// part_index of num_parts).
//
// Samples are dealt round-robin by their index in the pass: part p yields
// the samples whose index i has i % count == p, in order, so it streams
// and needs no memory. Every sample is in exactly one part. When the pass
// length L is not a multiple of count, the first L % count parts get
// one sample more than the others: sizes differ by at most one. Trainers
// that need equal parts can Take the shortest size (L / count) or drop the
// last partial batch.
//
// Every part reads the whole pass of r and drops what is not its own; to
// save that reading, shard the list of files instead. Random stages before
// Shard must use the same seed and epoch in every part, or parts overlap.
//
// Shard panics if count < 1 or index is not in [0, count).
func Shard[T any](r source.Reader[T], count, index int) source.Reader[T] {
	if count < 1 {
		panic(fmt.Sprintf("stage.Shard: count %d < 1", count))
	}
	if index < 0 || index >= count {
		panic(fmt.Sprintf("stage.Shard: index %d not in [0, %d)", index, count))
	}
	return &shard[T]{r: r, count: count, index: index}
}

type shard[T any] struct {
	r            source.Reader[T]
	count, index int
}

func (p *shard[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		slot := 0 // index in the pass, modulo count
		for s, err := range p.r.All(ctx) {
			if err != nil {
				yieldErr(yield, err)
				return
			}
			if slot == p.index && !yield(s, nil) {
				return
			}
			if slot++; slot == p.count {
				slot = 0
			}
		}
	}
}

func (p *shard[T]) kind() string { return fmt.Sprintf("shard(%d,%d)", p.count, p.index) }

// StateAt returns {shard(count,index), r's state after n rounds}: the n-th
// own sample is in round n-1, so the pass goes on at the start of round n.
func (p *shard[T]) StateAt(epoch int, n int64) (source.State, error) {
	in, err := source.StateOf(p.r, epoch, n*int64(p.count))
	return source.State{Kind: p.kind(), In: []source.State{in}}, err
}

// Resume continues r at the round of st.
func (p *shard[T]) Resume(st source.State) (source.Reader[T], error) {
	r, err := resumeInput(p.r, st, p.kind(), 0)
	if err != nil {
		return nil, err
	}
	return &shard[T]{r: r, count: p.count, index: p.index}, nil
}
