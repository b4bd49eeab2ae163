package mxnet_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/compat/mxnet"
)

// MXNet's mx.io.MNISTIter(image=..., label=...) with its defaults:
// shuffled once with seed 0, pixels scaled by 1/256, batches of 128, the
// last 16 samples of the test set's 10000 dropped. Every epoch gives the
// same batches.
func ExampleMNISTIter() {
	feed, err := mxnet.MNISTIter(context.Background(), mxnet.Params{
		"image": "../../data/mnist/t10k-images-idx3-ubyte.gz",
		"label": "../../data/mnist/t10k-labels-idx1-ubyte.gz",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for epoch, pass := range feed.Epochs(context.Background(), 2) {
		batches := 0
		for b, err := range pass {
			if err != nil {
				fmt.Println(err)
				return
			}
			if batches == 0 {
				data, _ := b.Get("data")
				label, _ := b.Get("softmax_label")
				fmt.Println("epoch", epoch, data.Shape, label.Shape, "first labels", label.F32[:5])
			}
			batches++
			b.Release()
		}
		fmt.Println(batches, "batches")
	}
	// Output:
	// epoch 0 [128 1 28 28] [128] first labels [1 9 6 1 6]
	// 78 batches
	// epoch 1 [128 1 28 28] [128] first labels [1 9 6 1 6]
	// 78 batches
}
