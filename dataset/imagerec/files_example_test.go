package imagerec_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
)

// New reads several .rec files as one stream: a ";"-separated list, or a
// directory whose .rec files are read in name order. Shard would cut them
// all as one.
func ExampleNew_severalFiles() {
	it, err := imagerec.New("testdata/mnist_t10k_1000_jpg.rec;testdata/mnist_t10k_1000_png_gray.rec",
		imagerec.DataShape(1, 28, 28), imagerec.Batch(300), imagerec.LastBatch(batch.RoundBatch))
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range it.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Len(), "images,", b.Padded, "padding")
		b.Release()
	}
	// Output:
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 100 padding
}
