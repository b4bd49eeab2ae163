// Package channels holds the conversions between gray, RGB and RGBA
// pixels that image/decode applies for Options.Channels and
// image/augment's ToChannels step applies to a decoded image, so that both
// give the same bytes (OpenCV's gray weights, alpha dropped or set to 255).
package channels

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Gray is OpenCV's fixed-point RGB to gray conversion (weights 0.299,
// 0.587, 0.114).
func Gray(r, g, b uint8) uint8 {
	return uint8((uint32(r)*4899 + uint32(g)*9617 + uint32(b)*1868 + 8192) >> 14)
}

// FromGray expands w x h gray pixels (rows stride apart) to ch channels.
func FromGray(dst, src []uint8, stride, w, h, ch int) {
	o := 0
	for y := range h {
		row := src[y*stride : y*stride+w]
		switch ch {
		case 1:
			copy(dst[o:o+w], row)
		case 3:
			d := dst[o : o+3*w]
			for i, v := range row {
				d[3*i], d[3*i+1], d[3*i+2] = v, v, v
			}
		case 4:
			d := dst[o : o+4*w]
			for i, v := range row {
				d[4*i], d[4*i+1], d[4*i+2], d[4*i+3] = v, v, v, 255
			}
		}
		o += w * ch
	}
}

// FromRGBA converts w x h RGBA pixels (rows stride apart) to ch channels;
// alpha is dropped for 1 and 3 channels, as OpenCV's colour decoding does.
func FromRGBA(dst, src []uint8, stride, w, h, ch int) {
	o := 0
	for y := range h {
		row := src[y*stride : y*stride+4*w]
		switch ch {
		case 1:
			d := dst[o : o+w]
			for i := range d {
				d[i] = Gray(row[4*i], row[4*i+1], row[4*i+2])
			}
		case 3:
			d := dst[o : o+3*w]
			for i := range w {
				d[3*i], d[3*i+1], d[3*i+2] = row[4*i], row[4*i+1], row[4*i+2]
			}
		case 4:
			copy(dst[o:o+4*w], row)
		}
		o += w * ch
	}
}

// Convert returns img converted to ch channels (1, 3 or 4), as
// decode.Options.Channels and augment.ToChannels convert: gray is repeated into R, G and B; colour
// becomes gray with OpenCV's weights; alpha is dropped or set to 255. It
// returns img itself when it has ch channels already, and panics if img or
// ch has another channel count.
func Convert(img sample.Image, ch int) sample.Image {
	if img.Channels == ch {
		return img
	}
	if ch != 1 && ch != 3 && ch != 4 {
		panic(fmt.Sprintf("channels: Convert: %d channels (want 1, 3 or 4)", ch))
	}
	out := sample.NewImage(img.Height, img.Width, ch)
	n := img.Height * img.Width
	switch img.Channels {
	case 1:
		FromGray(out.Pix, img.Pix, img.Width, img.Width, img.Height, ch)
	case 3:
		for i := range n {
			r, g, b := img.Pix[3*i], img.Pix[3*i+1], img.Pix[3*i+2]
			if ch == 1 {
				out.Pix[i] = Gray(r, g, b)
			} else {
				out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = r, g, b, 255
			}
		}
	case 4:
		FromRGBA(out.Pix, img.Pix, 4*img.Width, img.Width, img.Height, ch)
	default:
		panic(fmt.Sprintf("channels: Convert: image with %d channels", img.Channels))
	}
	return out
}
