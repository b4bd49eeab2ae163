package imagerec_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// The typed way to feed images, each step one part: the records of the
// file (recordio), decoded and augmented (imagerec's readers, each image
// drawing from its own generator), shuffled and batched by the pipeline,
// and written into float32 CHW tensors in [0, 1] by a sink on two
// goroutines. compat/mxnet's ImageRecordIter gives the same under MXNet's
// names, decoding and augmenting each image into its row of the batch on
// Tensorize's goroutines.
func Example_pipeline() {
	records := recordio.Open("testdata/mnist_t10k_1000_jpg.rec")
	images := imagerec.Decode(records, nil, decode.Options{Channels: 3}, nil)
	crops := imagerec.Augment(images, augment.Compose(augment.RandomCrop(24, 24), augment.RandomMirror()), 7)
	norm := augment.Normalize{Scale: 1.0 / 255}
	s := sink.New(256,
		[]sink.Field[imagerec.Example]{sink.Float32("data", []int{3, 24, 24}, func(ex imagerec.Example, dst []float32) {
			norm.Into(dst, ex.Image, false, nil)
		})},
		[]sink.Field[imagerec.Example]{sink.Float32("softmax_label", nil, func(ex imagerec.Example, dst []float32) {
			dst[0] = ex.Label[0]
		})})
	feed := pipeline.Tensorize(pipeline.From(crops).Shuffle(500, 7), s, batch.Pad, pipeline.Workers(2))
	for epoch, pass := range feed.Epochs(context.Background(), 2) {
		images := 0
		for b, err := range pass {
			if err != nil {
				fmt.Println(err)
				return
			}
			if images == 0 {
				fmt.Println("epoch", epoch, b.Data[0].Name, b.Data[0].Shape, b.Label[0].Name, b.Label[0].Shape)
			}
			images += b.Len() - b.Padded
			b.Release()
		}
		fmt.Println(images, "images")
	}
	// Output:
	// epoch 0 data [256 3 24 24] softmax_label [256]
	// 1000 images
	// epoch 1 data [256 3 24 24] softmax_label [256]
	// 1000 images
}

// Decode turns records into decoded images with their labels.
func ExampleDecode() {
	records := recordio.Open("testdata/mnist_t10k_1000_png_gray.rec")
	images := pipeline.From(imagerec.Decode(records, nil, decode.Options{}, nil)).Take(3)
	for ex, err := range images.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ex.Index, ex.ID, ex.Label, ex.Image.Shape())
	}
	// Output:
	// 0 0 [7] [28 28 1]
	// 1 1 [2] [28 28 1]
	// 2 2 [1] [28 28 1]
}

// Augment applies augmentation steps with a generator per sample, so the
// result depends on the seed and the sample, not on where it runs.
func ExampleAugment() {
	records := recordio.Open("testdata/mnist_t10k_1000_png_gray.rec")
	images := imagerec.Decode(records, nil, decode.Options{Channels: 3}, nil)
	augmented := imagerec.Augment(images,
		augment.Compose(
			augment.Resize(32, augment.Bilinear),
			augment.RandomCrop(24, 24),
			augment.RandomMirror(),
		),
		1, // the seed
	)
	n := 0
	for ex, err := range augmented.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if n++; n <= 2 {
			fmt.Println(ex.ID, ex.Image.Shape())
		}
	}
	fmt.Println(n, "images")
	// Output:
	// 0 [24 24 3]
	// 1 [24 24 3]
	// 1000 images
}

// DecodeRecord parses one record's header and decodes its image.
func ExampleDecodeRecord() {
	recs, _ := source.Collect(context.Background(), pipeline.From(recordio.Open("testdata/mnist_t10k_1000_jpg_multilabel.rec")).Take(2))
	for _, rec := range recs {
		ex, err := imagerec.DecodeRecord(rec, nil, decode.Options{Channels: 1})
		fmt.Println(ex.ID, ex.Label, ex.Image.Shape(), err)
	}
	// Output:
	// 0 [7 1 0] [28 28 1] <nil>
	// 1 [2 0 1] [28 28 1] <nil>
}

func ExampleParseList() {
	lst := "0\t7\ttrain/a.jpg\n1\t2.0\t0.5\ttrain/b c.jpg\n"
	entries, err := imagerec.ParseList(strings.NewReader(lst), "train.lst")
	for _, e := range entries {
		fmt.Println(e.Index, e.Labels, e.Path)
	}
	_, err2 := imagerec.ParseList(strings.NewReader("0\tcat.jpg\n"), "bad.lst")
	fmt.Println(err, err2)
	// Output:
	// 0 [7] train/a.jpg
	// 1 [2 0.5] train/b c.jpg
	// <nil> bad.lst: line 1: imagerec: bad .lst file: 2 tab-separated fields, want index, label(s) and path
}
