package imagerec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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

// MeanImg names MXNet's mean image file. When it is missing, the first
// pass computes the per-pixel mean of the data and saves it there, in
// MXNet's NDArray format; later Iters read it.
func ExampleMeanImg() {
	dir, err := os.MkdirTemp("", "meanimg")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mean.nd")
	it, err := imagerec.New("testdata/mnist_t10k_1000_jpg.rec",
		imagerec.DataShape(1, 28, 28), imagerec.Batch(500), imagerec.MeanImg(path))
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range it.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		b.Release()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	shape, mean, err := imagerec.ParseMeanImage(data, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("saved a mean image of shape", shape, "with", len(mean), "values")
	// Output:
	// saved a mean image of shape [1 28 28] with 784 values
}
