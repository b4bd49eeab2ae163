package batch_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

func ExampleSeqs() {
	// Word ids of three sentences, padded with 0 to the longest one.
	b := batch.Batch[[]int64]{Samples: [][]int64{{12, 7, 3}, {5}, {9, 9}}}
	s, err := padOne(b, 0, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println("shape", s.Shape(), "lens", s.Lens)
	for i := range len(s.Lens) {
		fmt.Println(s.Data[i*s.L : (i+1)*s.L]) // row i
	}
	fmt.Println("mask", s.Mask())
	// Output:
	// shape [3 3] lens [3 1 2]
	// [12 7 3]
	// [5 0 0]
	// [9 9 0]
	// mask [1 1 1 1 0 0 1 1 0]
}

func ExampleSeqs_fixed() {
	// A fixed length: a longer sequence is an error, unless Truncate.
	b := batch.Batch[[]int64]{Samples: [][]int64{{1, 2, 3, 4}, {5}}}
	_, err := padOne(b, 2, 0)
	fmt.Println(err)
	s, _ := padOne(b, 2, 0, pipeline.Truncate())
	fmt.Println(s.Data, s.Lens, "truncated", s.Truncated)
	// Output:
	// batch 0 of the pass: batch: sequence longer than the fixed length: tensorfeed: bad data: row 0 has 4 elements, fixed length 2
	// [1 2 5 0] [2 1] truncated 1
}

// A stream of batches padded by the pipeline's PadSeqs step.
func ExampleSeqs_pipeline() {
	sentences := source.Slice([][]int64{{1, 2}, {3}, {4, 5, 6}, {7}, {8}})
	r := pipeline.PadSeqs(pipeline.Batch(pipeline.From(sentences), 2, batch.Keep), 0, -1)
	for s, err := range r.All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(s.Shape(), s.Data, s.Lens)
	}
	// Output:
	// [2 2] [1 2 3 -1] [2 1]
	// [2 3] [4 5 6 7 -1 -1] [3 1]
	// [1 1] [8] [1]
}

// padOne pads one batch with pipeline.PadSeqs.
func padOne[E any](b batch.Batch[[]E], length int, pad E, opts ...pipeline.SeqOption) (batch.Seqs[E], error) {
	seqs := pipeline.PadSeqs(pipeline.From(source.Slice([]batch.Batch[[]E]{b})), length, pad, opts...)
	for s, err := range seqs.All(context.Background()) {
		return s, err
	}
	return batch.Seqs[E]{}, nil
}
