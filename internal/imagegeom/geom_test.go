package imagegeom_test

import (
	"errors"
	"fmt"
	"image"
	"testing"

	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/imagegeom"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

func ExampleToCHWUint8Rect() {
	rgb := sample.Image{Height: 1, Width: 2, Channels: 3, Pix: []uint8{1, 2, 3, 4, 5, 6}}
	dst := make([]uint8, 6)
	imagegeom.ToCHWUint8Rect(dst, rgb, image.Rect(0, 0, 2, 1), true) // the whole image, mirrored
	fmt.Println(dst)
	// Output: [4 1 5 2 6 3]
}

func TestToCHWUint8RectPart(t *testing.T) {
	img := sample.NewImage(3, 4, 2) // 3 rows of 4 pixels, 2 channels
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	dst := make([]uint8, 2*2*2)
	imagegeom.ToCHWUint8Rect(dst, img, image.Rect(1, 1, 3, 3), false)
	// Channel 0 of pixels (1,1) (2,1) (1,2) (2,2), then channel 1.
	want := []uint8{10, 12, 18, 20, 11, 13, 19, 21}
	if fmt.Sprint(dst) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", dst, want)
	}
}

func TestRects(t *testing.T) {
	if r, err := imagegeom.CenteredRect(7, 5, 4, 2); err != nil || r != image.Rect(1, 1, 5, 3) {
		t.Errorf("CenteredRect: %v, %v", r, err)
	}
	if r, err := imagegeom.FixedRect(7, 5, 3, 3, 4, 2); err != nil || r != image.Rect(3, 3, 7, 5) {
		t.Errorf("FixedRect: %v, %v", r, err)
	}
	rng := source.NewRand(1, 0, 0)
	for range 50 {
		r, err := imagegeom.RandomRect(7, 5, 4, 2, rng)
		if err != nil || !r.In(image.Rect(0, 0, 7, 5)) || r.Dx() != 4 || r.Dy() != 2 {
			t.Fatalf("RandomRect: %v, %v", r, err)
		}
	}
	for name, f := range map[string]func() (image.Rectangle, error){
		"FixedRect":    func() (image.Rectangle, error) { return imagegeom.FixedRect(7, 5, 4, 0, 4, 2) },
		"CenteredRect": func() (image.Rectangle, error) { return imagegeom.CenteredRect(3, 5, 4, 2) },
		"RandomRect":   func() (image.Rectangle, error) { return imagegeom.RandomRect(7, 1, 4, 2, rng) },
	} {
		if _, err := f(); !errors.Is(err, decode.ErrSize) {
			t.Errorf("%s: %v, want decode.ErrSize", name, err)
		}
	}
}
