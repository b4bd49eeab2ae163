// Package imagegeom holds the geometry kernels that image steps and fused
// image pipelines share: where a crop goes in an image, and the copy of a
// rectangle of an HWC image into CHW bytes. They are the building blocks of
// image/augment's crop steps and of compat/mxnet's ImageRecordIter, not a
// user's vocabulary (a user configures augment's steps).
package imagegeom

import (
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
)

// Fits returns an error wrapping decode.ErrSize when a w x h image does
// not hold a needW x needH region.
func Fits(w, h, needW, needH int) error {
	if w < needW || h < needH {
		return fmt.Errorf("%w: %dx%d image, need at least %dx%d", decode.ErrSize, w, h, needW, needH)
	}
	return nil
}

// FixedRect returns the cw x ch rectangle whose top-left corner is (x, y)
// in a w x h image (MXNet's crop_x_start / crop_y_start), or an error
// wrapping decode.ErrSize when the image does not hold it.
func FixedRect(w, h, x, y, cw, ch int) (image.Rectangle, error) {
	if err := Fits(w, h, x+cw, y+ch); err != nil {
		return image.Rectangle{}, err
	}
	return image.Rect(x, y, x+cw, y+ch), nil
}

// CenteredRect returns the centred cw x ch rectangle of a w x h image
// (MXNet's default crop: the offset is (w-cw)/2, (h-ch)/2, rounded down),
// or an error wrapping decode.ErrSize when the image is smaller.
func CenteredRect(w, h, cw, ch int) (image.Rectangle, error) {
	if err := Fits(w, h, cw, ch); err != nil {
		return image.Rectangle{}, err
	}
	x, y := (w-cw)/2, (h-ch)/2
	return image.Rect(x, y, x+cw, y+ch), nil
}

// RandomRect draws a cw x ch rectangle of a w x h image from r (y first,
// then x, as MXNet's rand_crop draws them), or returns an error wrapping
// decode.ErrSize when the image is smaller.
func RandomRect(w, h, cw, ch int, r *rand.Rand) (image.Rectangle, error) {
	if err := Fits(w, h, cw, ch); err != nil {
		return image.Rectangle{}, err
	}
	y := r.IntN(h - ch + 1)
	x := r.IntN(w - cw + 1)
	return image.Rect(x, y, x+cw, y+ch), nil
}

// ToCHWUint8Rect writes rectangle rect of img into dst in CHW order,
// flipped left to right when mirror is set, read straight from img: what
// ImageRecordIter yields with dtype uint8 (no normalisation). It panics if
// dst has the wrong length or rect is not inside img.
func ToCHWUint8Rect(dst []uint8, img sample.Image, rect image.Rectangle, mirror bool) {
	if !rect.In(image.Rect(0, 0, img.Width, img.Height)) {
		panic(fmt.Sprintf("imagegeom: ToCHWUint8Rect: %v outside the %dx%d image", rect, img.Width, img.Height))
	}
	ch, h, w := img.Channels, rect.Dy(), rect.Dx()
	if len(dst) != ch*h*w {
		panic(fmt.Sprintf("imagegeom: ToCHWUint8Rect: %d values for a %dx%dx%d image", len(dst), h, w, ch))
	}
	stride := img.Width * ch
	plane := h * w
	for y := range h {
		o := (rect.Min.Y+y)*stride + rect.Min.X*ch
		src := img.Pix[o : o+w*ch]
		for dx := range w {
			x := dx // stores forwards, loads backwards when mirrored
			if mirror {
				x = w - 1 - dx
			}
			for c := range ch {
				dst[c*plane+y*w+dx] = src[x*ch+c]
			}
		}
	}
}
