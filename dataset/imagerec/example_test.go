package imagerec_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/stage"
)

// An ImageRecordIter over the MNIST test records: 28 x 28 RGB crops,
// normalised to [0, 1], in batches of 256 with the last one padded.
func ExampleNewIter() {
	it, err := imagerec.NewIter(imagerec.Config{
		Data: imagerec.DataOptions{
			RecPath: "testdata/mnist_t10k_1000_jpg.rec",
			Shape:   [3]int{3, 28, 28},
		},
		Batch:   imagerec.BatchOptions{Size: 256, Last: batch.Pad},
		Aug:     imagerec.AugOptions{Mirror: imagerec.MirrorRandom},
		Norm:    imagerec.Normalize{Scale: 1.0 / 255},
		Backend: imagerec.BackendOptions{Threads: 2},
	})
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
		it.Recycle(b) // done with it: its memory may hold a later batch
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
	images := stage.Take(imagerec.Decode(records, imagerec.ReadOptions{}), 3)
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
	images := imagerec.Decode(records, imagerec.ReadOptions{Channels: 3})
	augmented := imagerec.Augment(images, imagerec.AugmentOptions{Seed: 1, Threads: 2},
		imagerec.Resize(32, imagerec.Bilinear),
		imagerec.RandomCrop(24, 24),
		imagerec.RandomMirror(),
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
		ex, err := imagerec.DecodeRecord(rec, imagerec.ReadOptions{Channels: 1})
		fmt.Println(ex.ID, ex.Label, ex.Image.Shape(), err)
	}
	// Output:
	// 0 [7 1 0] [28 28 1] <nil>
	// 1 [2 0 1] [28 28 1] <nil>
}

// A decoder can convert only a crop of the image.
func ExampleDecoder() {
	recs, _ := source.Collect(context.Background(), stage.Take(recordio.Open("testdata/mnist_t10k_1000_png_gray.rec"), 1))
	_, data, _ := imagerec.ParseRecord(recs[0].Data)
	dec := imagerec.DefaultDecoder() // "go", or "turbojpeg" when built with -tags turbojpeg
	img, err := dec.Decode(data, imagerec.DecodeOptions{Channels: 3, Crop: imagerec.CenterRect(4, 2)})
	fmt.Println(imagerec.Sniff(data), img.Shape(), img.Pix[:6], err)
	// Output:
	// png [2 4 3] [0 0 0 0 0 0] <nil>
}

// tiny is a 2 x 3 gray image: rows 0 1 2 and 10 11 12.
var tiny = sample.Image{Height: 2, Width: 3, Channels: 1, Pix: []uint8{0, 1, 2, 10, 11, 12}}

func ExampleCenterCrop() {
	img, _ := imagerec.CenterCrop(1, 2)(tiny, nil)
	fmt.Println(img.Pix)
	// Output: [1 11]
}

func ExampleCrop() {
	img, _ := imagerec.Crop(1, 0, 2, 1)(tiny, nil)
	fmt.Println(img.Pix)
	_, err := imagerec.Crop(2, 0, 2, 1)(tiny, nil)
	fmt.Println(err)
	// Output:
	// [1 2]
	// imagerec: image too small: 3x2 image, need at least 4x1
}

func ExampleRandomCrop() {
	crop := imagerec.RandomCrop(2, 1)
	for i := range 6 {
		img, _ := crop(tiny, source.NewRand(3, 0, i)) // seed 3, epoch 0, sample i
		fmt.Print(img.Pix, " ")
	}
	fmt.Println()
	// Output: [11 12] [1 2] [10 11] [10 11] [1 2] [10 11]
}

func ExampleMirror() {
	img, _ := imagerec.Mirror()(tiny, nil)
	fmt.Println(img.Pix)
	// Output: [2 1 0 12 11 10]
}

func ExampleRandomMirror() {
	flip := imagerec.RandomMirror()
	for i := range 4 {
		img, _ := flip(tiny, source.NewRand(1, 0, i))
		fmt.Print(img.Pix[:3], " ")
	}
	fmt.Println()
	// Output: [2 1 0] [2 1 0] [0 1 2] [0 1 2]
}

func ExamplePad() {
	img, _ := imagerec.Pad(1, 255)(sample.Image{Height: 1, Width: 1, Channels: 1, Pix: []uint8{5}}, nil)
	fmt.Println(img.Shape(), img.Pix)
	// Output: [3 3 1] [255 255 255 255 5 255 255 255 255]
}

func ExampleResize() {
	img := sample.NewImage(30, 40, 3)
	out, _ := imagerec.Resize(15, imagerec.Area)(img, nil) // shorter side to 15
	fmt.Println(out.Shape())
	// Output: [15 20 3]
}

func ExampleResizeImage() {
	img := sample.Image{Height: 1, Width: 2, Channels: 1, Pix: []uint8{0, 200}}
	fmt.Println(imagerec.ResizeImage(img, 4, 1, imagerec.Bilinear).Pix)
	fmt.Println(imagerec.ResizeImage(img, 4, 1, imagerec.Nearest).Pix)
	// Output:
	// [0 50 150 200]
	// [0 0 200 200]
}

func ExampleRandomAffine() {
	warp := imagerec.RandomAffine(imagerec.Affine{MaxRotateAngle: 10, MinRandomScale: 0.5, MaxRandomScale: 0.5, Fill: 255})
	img, _ := warp(sample.NewImage(40, 60, 3), source.NewRand(1, 0, 0))
	fmt.Println(img.Shape())
	// Output: [20 30 3]
}

func ExampleColorJitter() {
	gray := sample.Image{Height: 1, Width: 1, Channels: 3, Pix: []uint8{100, 100, 100}}
	jitter := imagerec.ColorJitter(0, 0, 30) // lightness only
	for i := range 3 {
		img, _ := jitter(gray, source.NewRand(1, 0, i))
		fmt.Print(img.Pix, " ")
	}
	fmt.Println()
	// Output: [71 71 71] [73 73 73] [107 107 107]
}

func ExampleToChannels() {
	rgb, _ := imagerec.ToChannels(3)(tiny, nil)
	fmt.Println(rgb.Shape(), rgb.Pix[:6])
	// Output: [2 3 3] [0 0 0 1 1 1]
}

func ExampleCompose() {
	aug := imagerec.Compose(imagerec.CenterCrop(2, 2), imagerec.Mirror())
	img, _ := aug(tiny, nil)
	fmt.Println(img.Pix)
	// Output: [1 0 11 10]
}

func ExampleNormalize() {
	n := imagerec.Normalize{Mean: [4]float32{10}, Std: [4]float32{2}}
	dst := make([]float32, 6)
	n.Into(dst, tiny, false, nil)
	fmt.Println(dst)
	n.Into(dst, tiny, true, nil) // mirrored
	fmt.Println(dst)
	// Output:
	// [-5 -4.5 -4 0 0.5 1]
	// [-4 -4.5 -5 1 0.5 0]
}

func ExampleToCHW() {
	rgb := sample.Image{Height: 1, Width: 2, Channels: 3, Pix: []uint8{1, 2, 3, 4, 5, 6}}
	dst := make([]float32, 6)
	imagerec.ToCHW(dst, rgb)
	fmt.Println(dst) // R plane, G plane, B plane
	// Output: [1 4 2 5 3 6]
}

func ExampleToCHWUint8() {
	rgb := sample.Image{Height: 1, Width: 2, Channels: 3, Pix: []uint8{1, 2, 3, 4, 5, 6}}
	dst := make([]uint8, 6)
	imagerec.ToCHWUint8(dst, rgb, true)
	fmt.Println(dst)
	// Output: [4 1 5 2 6 3]
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
	// <nil> imagerec: bad.lst:1: 2 tab-separated fields, want index, label(s) and path
}

func ExampleNewLabels() {
	entries := []imagerec.ListEntry{{Index: 5, Labels: []float32{1, 9}}, {Index: 2, Labels: []float32{0, 8}}}
	labels, _ := imagerec.NewLabels(entries, 1)
	l, ok := labels.Lookup(2)
	fmt.Println(l, ok)
	// Output: [0] true
}

func ExampleSniff() {
	fmt.Println(imagerec.Sniff([]byte{0xff, 0xd8, 0xff, 0xe1}), imagerec.Sniff([]byte("\x89PNG\r\n\x1a\n")), imagerec.Sniff([]byte("GIF8")))
	// Output: jpeg png unknown
}
