package imagerec_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// An ImageRecordIter over the MNIST test records: 28 x 28 RGB crops,
// normalised to [0, 1], in batches of 256 with the last one padded.
func ExampleNew() {
	it, err := imagerec.New("testdata/mnist_t10k_1000_jpg.rec",
		imagerec.DataShape(3, 28, 28),
		imagerec.Batch(256), imagerec.LastBatch(batch.Pad),
		imagerec.RandMirror(),
		imagerec.Normalize(augment.Normalize{Scale: 1.0 / 255}),
		imagerec.Threads(2),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(it.ProvideData(), it.ProvideLabel())
	for b, err := range it.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Data[0].Shape, "labels", b.Label[0].F32[:5], "padded", b.Padded)
		b.Release() // done with it: its memory may hold a later batch
	}
	// Output:
	// [data float32[256 3 28 28]] [softmax_label float32[256]]
	// [256 3 28 28] labels [7 2 1 0 4] padded 0
	// [256 3 28 28] labels [2 8 2 6 8] padded 0
	// [256 3 28 28] labels [2 2 6 3 2] padded 0
	// [256 3 28 28] labels [1 6 4 7 1] padded 24
}

// Decode turns records into decoded images with their labels.
func ExampleDecode() {
	records := recordio.Open("testdata/mnist_t10k_1000_png_gray.rec")
	images := stage.Take(imagerec.Decode(records), 3)
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
// result depends on the seed and the sample, not on the thread count.
func ExampleAugment() {
	records := recordio.Open("testdata/mnist_t10k_1000_png_gray.rec")
	images := imagerec.Decode(records, imagerec.Channels(3))
	augmented := imagerec.Augment(images,
		augment.Compose(
			augment.Resize(32, augment.Bilinear),
			augment.RandomCrop(24, 24),
			augment.RandomMirror(),
		),
		imagerec.Seed(1), imagerec.Threads(2),
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
	recs, _ := source.Collect(context.Background(), stage.Take(recordio.Open("testdata/mnist_t10k_1000_jpg_multilabel.rec"), 2))
	for _, rec := range recs {
		ex, err := imagerec.DecodeRecord(rec, imagerec.Channels(1))
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

func ExampleNewLabels() {
	entries := []imagerec.ListEntry{{Index: 5, Labels: []float32{1, 9}}, {Index: 2, Labels: []float32{0, 8}}}
	labels, _ := imagerec.NewLabels(entries, 1)
	l, ok := labels.Lookup(2)
	fmt.Println(l, ok)
	// Output: [0] true
}

// DType int8 gives MXNet's int8 batches: each pixel less its rounded
// per-channel mean, saturated to [-128, 127].
func ExampleDType_int8() {
	it, err := imagerec.New("testdata/mnist_t10k_1000_png_gray.rec",
		imagerec.DataShape(1, 28, 28), imagerec.Batch(500),
		imagerec.Normalize(augment.Normalize{Mean: [4]float32{127.5}}),
		imagerec.DType(sample.Int8),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(it.ProvideData())
	for b, err := range it.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		px := b.Data[0].I8
		fmt.Println(b.Data[0].Shape, "min", slices.Min(px), "max", slices.Max(px))
		b.Release()
	}
	// Output:
	// [data int8[500 1 28 28]]
	// [500 1 28 28] min -128 max 127
	// [500 1 28 28] min -128 max 127
}
