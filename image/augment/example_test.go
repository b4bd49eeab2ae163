package augment_test

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// tiny is a 2 x 3 gray image: rows 0 1 2 and 10 11 12.
var tiny = sample.Image{Height: 2, Width: 3, Channels: 1, Pix: []uint8{0, 1, 2, 10, 11, 12}}

func ExampleCenterCrop() {
	img, _ := augment.CenterCrop(1, 2)(tiny, nil)
	fmt.Println(img.Pix)
	// Output: [1 11]
}

func ExampleCrop() {
	img, _ := augment.Crop(1, 0, 2, 1)(tiny, nil)
	fmt.Println(img.Pix)
	_, err := augment.Crop(2, 0, 2, 1)(tiny, nil)
	fmt.Println(err)
	// Output:
	// [1 2]
	// decode: image too small: 3x2 image, need at least 4x1
}

func ExampleRandomCrop() {
	crop := augment.RandomCrop(2, 1)
	for i := range 6 {
		img, _ := crop(tiny, source.NewRand(3, 0, i)) // seed 3, epoch 0, sample i
		fmt.Print(img.Pix, " ")
	}
	fmt.Println()
	// Output: [11 12] [1 2] [10 11] [10 11] [1 2] [10 11]
}

func ExampleMirror() {
	img, _ := augment.Mirror()(tiny, nil)
	fmt.Println(img.Pix)
	// Output: [2 1 0 12 11 10]
}

func ExampleRandomMirror() {
	flip := augment.RandomMirror()
	for i := range 4 {
		img, _ := flip(tiny, source.NewRand(1, 0, i))
		fmt.Print(img.Pix[:3], " ")
	}
	fmt.Println()
	// Output: [2 1 0] [2 1 0] [0 1 2] [0 1 2]
}

func ExamplePad() {
	img, _ := augment.Pad(1, 255)(sample.Image{Height: 1, Width: 1, Channels: 1, Pix: []uint8{5}}, nil)
	fmt.Println(img.Shape(), img.Pix)
	// Output: [3 3 1] [255 255 255 255 5 255 255 255 255]
}

func ExampleResize() {
	img := sample.NewImage(30, 40, 3)
	out, _ := augment.Resize(15, augment.Area)(img, nil) // shorter side to 15
	fmt.Println(out.Shape())
	// Output: [15 20 3]
}

func ExampleResizeImage() {
	img := sample.Image{Height: 1, Width: 2, Channels: 1, Pix: []uint8{0, 200}}
	fmt.Println(augment.ResizeImage(img, 4, 1, augment.Bilinear).Pix)
	fmt.Println(augment.ResizeImage(img, 4, 1, augment.Nearest).Pix)
	// Output:
	// [0 50 150 200]
	// [0 0 200 200]
}

func ExampleRandomAffine() {
	warp := augment.RandomAffine(augment.Affine{MaxRotateAngle: 10, MinRandomScale: 0.5, MaxRandomScale: 0.5, Fill: 255})
	img, _ := warp(sample.NewImage(40, 60, 3), source.NewRand(1, 0, 0))
	fmt.Println(img.Shape())
	// Output: [20 30 3]
}

func ExampleColorJitter() {
	gray := sample.Image{Height: 1, Width: 1, Channels: 3, Pix: []uint8{100, 100, 100}}
	jitter := augment.ColorJitter(0, 0, 30) // lightness only
	for i := range 3 {
		img, _ := jitter(gray, source.NewRand(1, 0, i))
		fmt.Print(img.Pix, " ")
	}
	fmt.Println()
	// Output: [71 71 71] [73 73 73] [107 107 107]
}

func ExampleToChannels() {
	rgb, _ := augment.ToChannels(3)(tiny, nil)
	fmt.Println(rgb.Shape(), rgb.Pix[:6])
	// Output: [2 3 3] [0 0 0 1 1 1]
}

func ExampleCompose() {
	aug := augment.Compose(augment.CenterCrop(2, 2), augment.Mirror())
	img, _ := aug(tiny, nil)
	fmt.Println(img.Pix)
	// Output: [1 0 11 10]
}

func ExampleNormalize() {
	n := augment.Normalize{Mean: [4]float32{10}, Std: [4]float32{2}}
	dst := make([]float32, 6)
	n.Into(dst, tiny, false, nil)
	fmt.Println(dst)
	n.Into(dst, tiny, true, nil) // mirrored
	fmt.Println(dst)
	// Output:
	// [-5 -4.5 -4 0 0.5 1]
	// [-4 -4.5 -5 1 0.5 0]
}

// The zero Normalize converts to float32 CHW without normalising.
func ExampleNormalize_Into() {
	rgb := sample.Image{Height: 1, Width: 2, Channels: 3, Pix: []uint8{1, 2, 3, 4, 5, 6}}
	dst := make([]float32, 6)
	var plain augment.Normalize
	plain.Into(dst, rgb, false, nil)
	fmt.Println(dst) // R plane, G plane, B plane
	// Output: [1 4 2 5 3 6]
}
