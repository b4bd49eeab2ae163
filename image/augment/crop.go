package augment

import (
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/internal/imagegeom"
	"github.com/tensorfeed/tensorfeed/sample"
)

// Crop returns an Aug that keeps the width x height rectangle whose top-left
// corner is (x, y) (MXNet's crop_x_start / crop_y_start). An image that does
// not hold the rectangle gives an error wrapping decode.ErrSize. It panics if
// width or height is < 1 or x or y is negative.
func Crop(x, y, width, height int) Aug {
	checkCrop("Crop", width, height)
	if x < 0 || y < 0 {
		panic(fmt.Sprintf("augment: Crop: origin (%d, %d) is negative", x, y))
	}
	return func(img sample.Image, _ *rand.Rand) (sample.Image, error) {
		if err := imagegeom.Fits(img.Width, img.Height, x+width, y+height); err != nil {
			return img, err
		}
		return CropImage(img, image.Rect(x, y, x+width, y+height)), nil
	}
}

// CenterCrop returns an Aug that keeps the centred width x height rectangle
// (MXNet's default crop: the offset is (W-width)/2, (H-height)/2, rounded
// down). A smaller image gives an error wrapping decode.ErrSize. It panics if
// width or height is < 1.
func CenterCrop(width, height int) Aug {
	checkCrop("CenterCrop", width, height)
	return func(img sample.Image, _ *rand.Rand) (sample.Image, error) {
		r, err := imagegeom.CenteredRect(img.Width, img.Height, width, height)
		if err != nil {
			return img, err
		}
		return CropImage(img, r), nil
	}
}

// RandomCrop returns an Aug that keeps a width x height rectangle at a
// uniformly drawn position (MXNet's rand_crop): y in [0, H-height], then x in
// [0, W-width]. A smaller image gives an error wrapping decode.ErrSize. It panics
// if width or height is < 1.
func RandomCrop(width, height int) Aug {
	checkCrop("RandomCrop", width, height)
	return func(img sample.Image, r *rand.Rand) (sample.Image, error) {
		rect, err := imagegeom.RandomRect(img.Width, img.Height, width, height, r)
		if err != nil {
			return img, err
		}
		return CropImage(img, rect), nil
	}
}

// CropImage returns a copy of rectangle r of img. It panics if r is not
// inside the image.
func CropImage(img sample.Image, r image.Rectangle) sample.Image {
	if !r.In(image.Rect(0, 0, img.Width, img.Height)) {
		panic(fmt.Sprintf("augment: CropImage: %v outside the %dx%d image", r, img.Width, img.Height))
	}
	out := sample.NewImage(r.Dy(), r.Dx(), img.Channels)
	rowLen := r.Dx() * img.Channels
	for y := range r.Dy() {
		o := ((r.Min.Y+y)*img.Width + r.Min.X) * img.Channels
		copy(out.Pix[y*rowLen:(y+1)*rowLen], img.Pix[o:o+rowLen])
	}
	return out
}

func checkCrop(name string, w, h int) {
	if w < 1 || h < 1 {
		panic(fmt.Sprintf("augment: %s: size %dx%d", name, w, h))
	}
}

// CenterRect returns a function for decode.Options.Crop that keeps the
// centred width x height rectangle of an image, as CenterCrop does, and
// fails with decode.ErrSize on a smaller image. It panics if width or height is < 1.
func CenterRect(width, height int) func(w, h int) (image.Rectangle, error) {
	checkCrop("CenterRect", width, height)
	return func(w, h int) (image.Rectangle, error) { return imagegeom.CenteredRect(w, h, width, height) }
}

// Pad returns an Aug that adds n pixels of value fill on every side (MXNet's
// pad). It panics if n < 0.
func Pad(n int, fill uint8) Aug {
	if n < 0 {
		panic(fmt.Sprintf("augment: Pad: %d < 0", n))
	}
	return func(img sample.Image, _ *rand.Rand) (sample.Image, error) {
		if n == 0 {
			return img, nil
		}
		return padImage(img, n, fill), nil
	}
}

// padImage returns img with n pixels of value fill added on every side.
func padImage(img sample.Image, n int, fill uint8) sample.Image {
	out := sample.NewImage(img.Height+2*n, img.Width+2*n, img.Channels)
	for i := range out.Pix {
		out.Pix[i] = fill
	}
	rowLen := img.Width * img.Channels
	for y := range img.Height {
		o := ((y+n)*out.Width + n) * img.Channels
		copy(out.Pix[o:o+rowLen], img.Pix[y*rowLen:(y+1)*rowLen])
	}
	return out
}
