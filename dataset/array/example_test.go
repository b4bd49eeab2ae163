package array_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/dataset/array"
)

// From Go slices to batches of named tensors, as MXNet.jl's
// ArrayDataProvider(:data => x, :softmax_label => y, batch_size=4).
func ExampleNew() {
	x := [][]float32{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 2}, {3, 3}}
	y := []float32{0, 1, 1, 0, 0, 0}
	p := array.New(
		[]array.Array{array.Float32Rows("data", x)},
		[]array.Array{array.Float32("softmax_label", nil, y)},
		array.BatchSize(4), array.Padding(-1, -1))
	fmt.Println(p.ProvideData(), p.ProvideLabel())
	for t, err := range p.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		data, _ := t.Get("data")
		label, _ := t.Get("softmax_label")
		fmt.Println(data.F32, label.F32, "real samples:", t.Len()-t.Padded)
	}
	// Output:
	// [data float32[4 2]] [softmax_label float32[4]]
	// [0 0 0 1 1 0 1 1] [0 1 1 0] real samples: 4
	// [2 2 3 3 -1 -1 -1 -1] [0 0 -1 -1] real samples: 2
}

// Shuffle draws a new order every epoch; rows of data and labels stay
// together.
func ExampleShuffle() {
	p := array.New(
		[]array.Array{array.Int32("id", nil, []int32{0, 1, 2, 3, 4})},
		nil, array.Shuffle(42))
	for epoch := range 2 {
		for t, err := range p.All(context.Background()) {
			if err != nil {
				fmt.Println(err)
				return
			}
			id, _ := t.Get("id")
			fmt.Println("epoch", epoch, id.I32)
		}
	}
	// Output:
	// epoch 0 [4 2 1 0 3]
	// epoch 1 [1 3 2 0 4]
}

// A training loop that releases every batch once it is done with it lets
// the provider write the next batch into the same memory.
func ExampleProvider_All_release() {
	p := array.New([]array.Array{array.Int32("id", nil, []int32{0, 1, 2, 3, 4, 5})}, nil, array.BatchSize(2))
	for t, err := range p.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		id, _ := t.Get("id")
		fmt.Println(id.I32)
		t.Release() // t must not be used after this
	}
	// Output:
	// [0 1]
	// [2 3]
	// [4 5]
}
