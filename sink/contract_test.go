package sink_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// labels ends a tensor reader as a training loop does: it reads which
// samples each batch holds (the first column of "tok", mkrec's index) and
// releases the batch.
func labels(r source.Reader[*tensor.Batch]) source.Reader[[]int64] {
	return source.Func[[]int64](func(ctx context.Context) iter.Seq2[[]int64, error] {
		return func(yield func([]int64, error) bool) {
			for b, err := range r.All(ctx) {
				if err != nil {
					yield(nil, err)
					return
				}
				tok, _ := b.Get("tok")
				l := make([]int64, b.Len())
				for i := range l {
					l[i] = int64(tok.I32[3*i])
				}
				b.Release()
				if !yield(l, nil) {
					return
				}
			}
		}
	})
}

func TestStagesKeepTheContract(t *testing.T) {
	for _, last := range []batch.Policy{batch.Keep, batch.Drop, batch.Pad, batch.RollOver, batch.RoundBatch} {
		t.Run("Tensorize/"+last.String(), func(t *testing.T) {
			var opts []sourcetest.Option
			if last == batch.RollOver || last == batch.RoundBatch { // carry state from pass to pass
				opts = append(opts, sourcetest.Nondeterministic())
			}
			s := newSink(7)
			stage := func(r source.Reader[rec]) source.Reader[*tensor.Batch] {
				return pipeline.Tensorize(pipeline.From(r), s, last)
			}
			if err := sourcetest.TestStage(stage, mkrec, opts...); err != nil {
				t.Fatal(err)
			}
			released := func(r source.Reader[rec]) source.Reader[[]int64] {
				return labels(pipeline.Tensorize(pipeline.From(r), s, last))
			}
			if err := sourcetest.TestStage(released, mkrec, opts...); err != nil {
				t.Fatalf("released: %v", err)
			}
		})
	}
	t.Run("TensorizeBatches", func(t *testing.T) {
		s := newSink(7)
		stage := func(r source.Reader[rec]) source.Reader[[]int64] {
			return labels(pipeline.TensorizeBatches(pipeline.From(batch.OfFill(r, 7, mkrec(0))), s))
		}
		if err := sourcetest.TestStage(stage, mkrec); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTensorizeRollOver checks that the batch size of the sink carries the
// remainder of a pass into the next one.
func TestTensorizeRollOver(t *testing.T) {
	r := labels(pipeline.Tensorize(pipeline.From(source.Slice(recs(10))), newSink(4), batch.RollOver))
	var got [][]int64
	for range 2 {
		pass, err := source.Collect(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, pass...)
	}
	want := [][]int64{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 0, 1}, {2, 3, 4, 5}, {6, 7, 8, 9}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("labels %v, want %v", got, want)
	}
}
