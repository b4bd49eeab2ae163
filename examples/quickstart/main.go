// Command quickstart is the pipeline shown in README.md: MNIST digits,
// shuffled, batched and assembled into tensors while the model trains.
package main

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
)

func main() {
	train := mnist.Train("data/mnist", mnist.Scaling(mnist.ScaleSymmetric)) // 60,000 digits, pixels in [-1, 1]
	tensors := sink.New(128,                                                // the batch size, written once
		[]sink.Field[mnist.Sample]{sink.Float32("image", []int{784}, train.FillImage)},
		[]sink.Field[mnist.Sample]{sink.Int32("label", nil, mnist.FillLabelInt32)})
	samples := pipeline.From(train).Shuffle(10_000, 42)
	feed := pipeline.Tensorize(samples, tensors, batch.Keep).Buffered(4) // assembled while the model trains

	for epoch, pass := range feed.Epochs(context.Background(), 2) {
		for t, err := range pass {
			if err != nil {
				panic(err) // a bad file says which file and where
			}
			x, _ := t.Get("image") // x.Shape is [128 784], x.F32 is contiguous
			y, _ := t.Get("label")
			_, _ = x.F32, y.I32 // model.Step(x.F32, y.I32)
			t.Release()         // the next batch may reuse this memory
		}
		fmt.Println("epoch", epoch, "done")
	}
	fmt.Println(feed.Stats())
}
