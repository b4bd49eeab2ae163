package batch_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
)

// show runs one pass of r and prints its batches.
func show(r source.Reader[batch.Batch[string]]) {
	for b, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(b.Samples, "padded", b.Padded)
	}
}

var letters = source.Slice([]string{"a", "b", "c", "d", "e", "f", "g"})

func ExampleOf_keep() {
	show(batch.Of(letters, 3, batch.Keep))
	// Output:
	// [a b c] padded 0
	// [d e f] padded 0
	// [g] padded 0
}

func ExampleOf_drop() {
	show(batch.Of(letters, 3, batch.Drop))
	// Output:
	// [a b c] padded 0
	// [d e f] padded 0
}

func ExampleOf_pad() {
	// The last batch is filled up with the first samples of the pass;
	// Real() gives the samples that count (MXNet.jl's count_samples).
	for b, err := range batch.Of(letters, 3, batch.Pad).All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(b.Samples, "padded", b.Padded, "real", b.Real())
	}
	// Output:
	// [a b c] padded 0 real [a b c]
	// [d e f] padded 0 real [d e f]
	// [g a b] padded 2 real [g]
}

func ExampleOf_rollOver() {
	// The remainder of one pass starts the first batch of the next one.
	r := batch.Of(letters, 3, batch.RollOver)
	for epoch := range 3 {
		fmt.Println("epoch", epoch)
		show(r)
	}
	// Output:
	// epoch 0
	// [a b c] padded 0
	// [d e f] padded 0
	// epoch 1
	// [g a b] padded 0
	// [c d e] padded 0
	// epoch 2
	// [f g a] padded 0
	// [b c d] padded 0
	// [e f g] padded 0
}

func ExampleOf_wholePass() {
	// Size 0: the whole pass is one batch.
	show(batch.Of(letters, 0, batch.Keep))
	// Output:
	// [a b c d e f g] padded 0
}

func ExampleOfFill() {
	show(batch.OfFill(letters, 3, "-"))
	// Output:
	// [a b c] padded 0
	// [d e f] padded 0
	// [g - -] padded 2
}

func ExampleOf_roundBatch() {
	// The last batch is filled with the first samples, and the next epoch
	// starts after them (MXNet's round_batch).
	r := batch.Of(letters, 3, batch.RoundBatch)
	for epoch := range 3 {
		fmt.Println("epoch", epoch)
		show(r)
	}
	// Output:
	// epoch 0
	// [a b c] padded 0
	// [d e f] padded 0
	// [g a b] padded 2
	// epoch 1
	// [c d e] padded 0
	// [f g a] padded 1
	// epoch 2
	// [b c d] padded 0
	// [e f g] padded 0
}

func ExampleBatch_Carried() {
	// With RollOver, Carried counts the samples a batch took from the
	// previous pass; MXNet's NDArrayIter reports them as pad.
	r := batch.Of(letters, 3, batch.RollOver)
	for epoch := range 2 {
		for b, err := range r.All(context.Background()) {
			if err != nil {
				panic(err)
			}
			fmt.Println(epoch, b.Samples, "carried", b.Carried, "mxnet pad", b.Padded+b.Carried)
		}
	}
	// Output:
	// 0 [a b c] carried 0 mxnet pad 0
	// 0 [d e f] carried 0 mxnet pad 0
	// 1 [g a b] carried 1 mxnet pad 1
	// 1 [c d e] carried 0 mxnet pad 0
}
