package sink_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

func Example_release() {
	// Tensors are assembled ahead of the training loop, in Buffered's
	// goroutine, while the loop still reads earlier batches. The loop
	// releases each batch when it is done with it, and the sink assembles
	// later batches into that memory.
	r := stage.Buffered(pipeline.Tensorize(pipeline.From(source.Slice(digits)), digitSink(1), batch.Keep), 2)
	for ts, err := range r.All(context.Background()) {
		if err != nil {
			panic(err)
		}
		img, _ := ts.Get("image")
		fmt.Println(ts.Label[0].I64, img.F32)
		ts.Release() // ts must not be used after this
	}
	// Output:
	// [1] [0 1 1 0]
	// [2] [1 0 0 1]
	// [0] [1 1 0 0]
}

func ExampleField_WritesAll() {
	// The image fill writes all four pixels, so the sink need not clear
	// reused rows for it; the one-hot fill sets a single element and
	// relies on a zeroed row, so it stays unmarked.
	s := sink.New(1,
		[]sink.Field[digit]{
			sink.Float32("image", []int{4}, func(d digit, dst []float32) {
				for i, p := range d.Pix {
					dst[i] = float32(p) / 255
				}
			}).WritesAll(),
		},
		[]sink.Field[digit]{
			sink.Float32("onehot", []int{3}, func(d digit, dst []float32) { dst[d.Class] = 1 }),
		})
	for _, d := range digits {
		ts, err := s.Assemble(batch.Batch[digit]{Samples: []digit{d}})
		if err != nil {
			panic(err)
		}
		fmt.Println(ts.Data[0].F32, ts.Label[0].F32)
		ts.Release() // the next batch is written into this memory
	}
	// Output:
	// [0 1 1 0] [0 1 0]
	// [1 0 0 1] [0 0 1]
	// [1 1 0 0] [1 0 0]
}
