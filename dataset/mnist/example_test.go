package mnist_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// The README's pipeline: the training set in memory, a new order every
// epoch (a shuffle by index), batches of 128 tensors built from the
// Sample's struct tags, the pixels in [-1, 1].
func Example() {
	ctx := context.Background()
	train, err := mnist.Train("../../data/mnist").Load(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	feed := pipeline.Tensorize(pipeline.From(source.ReadIndexed(train, source.ShuffleIndex(42))),
		sink.Of[mnist.Sample](128, sink.Scale("image", -1, 1)), batch.Keep).Buffered(4)
	batches := 0
	for t, err := range feed.All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if batches == 0 {
			x, _ := t.Get("image")
			y, _ := t.Get("label")
			fmt.Println(x.Shape, x.DType, slices.Min(x.F32), slices.Max(x.F32), y.Shape, y.DType)
		}
		batches++
		t.Release()
	}
	fmt.Println(batches, "batches")
	// Output:
	// [128 784] float32 -1 1 [128] int32
	// 469 batches
}

func ExampleTrain() {
	// Finds train-images-idx3-ubyte[.gz] and its labels, and decodes them.
	train, err := mnist.Train("../../data/mnist").Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	var first []uint8
	for i := range 5 {
		s, _ := train.Get(i)
		first = append(first, s.Label)
	}
	fmt.Println(train.Len(), "samples, first labels", first)
	// Output: 60000 samples, first labels [5 0 4 1 9]
}

func ExampleTest() {
	// Part 1 of 4 of the test set, a new order every epoch: the rank
	// split and the shuffle are source.ReadIndexed's.
	test, err := mnist.Test("../../data/mnist").Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	r := source.ReadIndexed(test, source.ShuffleIndex(7), source.ShardIndex(4, 1, source.PadShards))
	n, err := source.Count(context.Background(), r)
	fmt.Println(n, "samples", err)
	// Output: 2500 samples <nil>
}

// A Dataset is also a reader of the files in their order, one record at a
// time, for a set that is not to be held in memory.
func ExampleNew() {
	ds := mnist.New("../../data/mnist/t10k-images-idx3-ubyte.gz", "../../data/mnist/t10k-labels-idx1-ubyte.gz")
	for s, err := range ds.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		sum := 0
		for _, p := range s.Image {
			sum += int(p)
		}
		fmt.Printf("label %d, %d pixels, pixel sum %d\n", s.Label, len(s.Image), sum)
		break
	}
	// Output: label 7, 784 pixels, pixel sum 18454
}

func ExampleOnBad() {
	// Take the digits 7, 8 and 9 for labels of no class, and skip them
	// while they are at most half of the records.
	ds := mnist.Test("../../data/mnist", mnist.Classes(7), mnist.OnBad(source.SkipBad(0.5)))
	n, err := source.Count(context.Background(), ds)
	fmt.Println(n, "samples,", ds.Skipped(), "skipped,", err)
	// Output: 6989 samples, 3011 skipped, <nil>
}
