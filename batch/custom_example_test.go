package batch_test

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// Example_customBatchReader shows PaddlePaddle's custom_batch_reader: a
// batch reader written by hand is a source.Reader[batch.Batch[T]] like the
// output of Of, so it feeds pipeline.PadSeqs and the sinks (see the sink
// package's example of the same name). This one buckets sentences by
// length so that little padding is needed.
func Example_customBatchReader() {
	sentences := source.Slice([][]int64{{1}, {2, 2, 2}, {3}, {4, 4, 4, 4}, {5, 5}, {6, 6}})
	byLength := source.Func[batch.Batch[[]int64]](func(ctx context.Context) iter.Seq2[batch.Batch[[]int64], error] {
		return func(yield func(batch.Batch[[]int64], error) bool) {
			all, err := source.Collect(ctx, sentences)
			if err != nil {
				yield(batch.Batch[[]int64]{}, err)
				return
			}
			slices.SortStableFunc(all, func(a, b []int64) int { return len(a) - len(b) })
			for chunk := range slices.Chunk(all, 2) {
				if !yield(batch.Batch[[]int64]{Samples: chunk}, nil) {
					return
				}
			}
		}
	})
	for s, err := range pipeline.PadSeqs(pipeline.From(byLength), 0, 0).All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(s.Shape(), s.Data)
	}
	// Output:
	// [2 1] [1 3]
	// [2 2] [5 5 6 6]
	// [2 4] [2 2 2 0 4 4 4 4]
}
