package mxnet_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// MXNet's mx.io.NDArrayIter(data=x, label=y, batch_size=4): arrays in
// memory to batches; the short last batch is padded with the first
// samples, counted in Padded.
func ExampleNDArrayIter() {
	x := tensor.Tensor{Shape: []int{6, 2}, DType: sample.Float32, F32: []float32{0, 0, 0, 1, 1, 0, 1, 1, 2, 2, 3, 3}}
	y := tensor.Tensor{Shape: []int{6}, DType: sample.Float32, F32: []float32{0, 1, 1, 0, 0, 0}}
	feed, err := mxnet.NDArrayIter(context.Background(), mxnet.Params{"data": x, "label": y, "batch_size": 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range feed.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		data, _ := b.Get("data")
		label, _ := b.Get("softmax_label")
		fmt.Println(data.F32, label.F32, "real samples:", b.Len()-b.Padded)
		b.Release()
	}
	// Output:
	// [0 0 0 1 1 0 1 1] [0 1 1 0] real samples: 4
	// [2 2 3 3 0 0 0 1] [0 0 0 1] real samples: 2
}
