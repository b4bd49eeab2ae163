package batch_test

import (
	"context"
	"iter"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// sums ends a recycling batch reader: it yields the sum of every batch and
// recycles the batch, as a last consumer does.
func sums(r source.Reader[batch.Batch[int]]) source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for b, err := range r.All(ctx) {
				if err != nil {
					yield(0, err)
					return
				}
				s := 0
				for _, v := range b.Samples {
					s += v
				}
				b.Release()
				if !yield(s, nil) {
					return
				}
			}
		}
	})
}

func TestStagesKeepTheContract(t *testing.T) {
	id := func(i int) int { return i }
	for _, tc := range []struct {
		name  string
		stage func(source.Reader[int]) source.Reader[batch.Batch[int]]
		opts  []sourcetest.Option
	}{
		{"Of/keep", func(r source.Reader[int]) source.Reader[batch.Batch[int]] { return batch.Of(r, 7, batch.Keep) }, nil},
		{"Of/drop", func(r source.Reader[int]) source.Reader[batch.Batch[int]] { return batch.Of(r, 7, batch.Drop) }, nil},
		{"Of/pad", func(r source.Reader[int]) source.Reader[batch.Batch[int]] { return batch.Of(r, 7, batch.Pad) }, nil},
		// A RollOver reader carries samples from one pass to the next, so
		// two passes of one epoch differ by design.
		{"Of/rollover", func(r source.Reader[int]) source.Reader[batch.Batch[int]] { return batch.Of(r, 7, batch.RollOver) },
			[]sourcetest.Option{sourcetest.Nondeterministic()}},
		// A RoundBatch pass starts after the samples the last one padded with.
		{"Of/roundbatch", func(r source.Reader[int]) source.Reader[batch.Batch[int]] { return batch.Of(r, 7, batch.RoundBatch) },
			[]sourcetest.Option{sourcetest.Nondeterministic()}},
		{"OfFill", func(r source.Reader[int]) source.Reader[batch.Batch[int]] { return batch.OfFill(r, 7, -1) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := sourcetest.TestStage(tc.stage, id, tc.opts...); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("Of/recycling", func(t *testing.T) {
		stage := func(r source.Reader[int]) source.Reader[int] {
			return sums(batch.Of(r, 7, batch.Pad, batch.Recycling()))
		}
		if err := sourcetest.TestStage(stage, id); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("pipeline.PadSeqs", func(t *testing.T) {
		stage := func(r source.Reader[[]int32]) source.Reader[batch.Seqs[int32]] {
			return padSeqs(batch.Of(r, 4, batch.Keep, batch.Recycling()), 0, 0)
		}
		seq := func(i int) []int32 { return make([]int32, i%5) }
		if err := sourcetest.TestStage(stage, seq); err != nil {
			t.Fatal(err)
		}
	})
}
