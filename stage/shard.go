package stage

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Shard returns part partIndex of numParts of every pass of r, for
// data-parallel training where each worker reads its own part.
//
// Samples are dealt round-robin by their index in the pass: part p yields
// the samples whose index i has i % numParts == p, in order, so it streams
// and needs no memory. Every sample is in exactly one part. When the pass
// length L is not a multiple of numParts, the first L % numParts parts get
// one sample more than the others: sizes differ by at most one. Trainers
// that need equal parts can Take the shortest size (L / numParts) or drop the
// last partial batch.
//
// Every part reads the whole pass of r and drops what is not its own; to
// save that reading, shard the list of files instead. Random stages before
// Shard must use the same seed and epoch in every part, or parts overlap.
//
// Shard panics if numParts < 1 or partIndex is not in [0, numParts).
func Shard[T any](r source.Reader[T], numParts, partIndex int) source.Reader[T] {
	if numParts < 1 {
		panic(fmt.Sprintf("stage.Shard: numParts %d < 1", numParts))
	}
	if partIndex < 0 || partIndex >= numParts {
		panic(fmt.Sprintf("stage.Shard: partIndex %d not in [0, %d)", partIndex, numParts))
	}
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			slot := 0 // index in the pass, modulo numParts
			for s, err := range r.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				if slot == partIndex && !yield(s, nil) {
					return
				}
				if slot++; slot == numParts {
					slot = 0
				}
			}
		}
	})
}
