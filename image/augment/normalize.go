package augment

import (
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Normalize turns an HWC uint8 image into a CHW float32 tensor the way
// MXNet's ImageRecordIter does:
//
//	out[c][y][x] = (pix - mean_c) * contrast*scale/std_c + illumination*scale/std_c
//
// with contrast = 1 + u1 and illumination = u2, u1 drawn from
// [-MaxRandomContrast, MaxRandomContrast] and u2 from
// [-MaxRandomIllumination, MaxRandomIllumination]. Channel c of a gray
// image uses index 0 of Mean and Std. The zero value converts pixels to
// float32 unchanged.
type Normalize struct {
	// Mean is subtracted per channel: R, G, B, A (mean_r, mean_g, mean_b,
	// mean_a).
	Mean [4]float32
	// Std divides per channel (std_r, ...). A zero entry means 1.
	Std [4]float32
	// Scale multiplies everything (scale); zero means 1. 1/255 maps pixels
	// to [0, 1].
	Scale float32
	// MeanImage, when set, is subtracted instead of Mean: a CHW tensor of
	// the output's shape (MXNet's mean_img).
	MeanImage []float32
	// MaxRandomContrast and MaxRandomIllumination bound the random
	// contrast and illumination changes (max_random_contrast,
	// max_random_illumination). Zero draws nothing.
	MaxRandomContrast, MaxRandomIllumination float32
}

// random reports whether Into draws from its generator.
func (n *Normalize) random() bool {
	return n.MaxRandomContrast != 0 || n.MaxRandomIllumination != 0
}

// Into writes img into dst, which must hold Channels*Height*Width values,
// in CHW order, flipped left to right when mirror is set. r draws the
// contrast and illumination; it may be nil when Random reports false. Into
// panics if dst or MeanImage has the wrong length or img has more than 4
// channels.
func (n *Normalize) Into(dst []float32, img sample.Image, mirror bool, r *rand.Rand) {
	n.into(dst, viewOf(img), mirror, r)
}

// IntoRect is Into for rectangle rect of img: it writes only those pixels,
// straight from img, without copying the crop out first. It panics as Into
// does, and if rect is not inside img.
func (n *Normalize) IntoRect(dst []float32, img sample.Image, rect image.Rectangle, mirror bool, r *rand.Rand) {
	n.into(dst, subView(img, rect), mirror, r)
}

// view is a rectangle of an HWC image: h rows of w pixels of ch channels,
// row y starting at pix[y*stride].
type view struct {
	pix              []uint8
	stride, w, h, ch int
}

func viewOf(img sample.Image) view {
	return view{pix: img.Pix, stride: img.Width * img.Channels, w: img.Width, h: img.Height, ch: img.Channels}
}

// subView returns the view of rectangle r of img.
func subView(img sample.Image, r image.Rectangle) view {
	if !r.In(image.Rect(0, 0, img.Width, img.Height)) {
		panic(fmt.Sprintf("augment: %v outside the %dx%d image", r, img.Width, img.Height))
	}
	v := viewOf(img)
	v.pix = img.Pix[(r.Min.Y*img.Width+r.Min.X)*img.Channels:]
	v.w, v.h = r.Dx(), r.Dy()
	return v
}

// Linear returns the multiplier and the bias of each of the first ch
// channels that Into uses, drawing the contrast and the illumination from
// r as Into does (r may be nil when Random reports false): Into writes
// (float32(pix)-Mean[c])*mul[c] + bias[c], each operation rounded to
// float32, when MeanImage is nil.
func (n *Normalize) Linear(ch int, r *rand.Rand) (mul, bias [4]float32) {
	contrast, illum := float32(1), float32(0)
	if n.random() {
		contrast = r.Float32()*n.MaxRandomContrast*2 - n.MaxRandomContrast + 1
		illum = r.Float32()*n.MaxRandomIllumination*2 - n.MaxRandomIllumination
	}
	scale := n.Scale
	if scale == 0 {
		scale = 1
	}
	for c := range min(ch, 4) {
		std := n.Std[c]
		if std == 0 {
			std = 1
		}
		mul[c] = contrast * scale / std
		bias[c] = illum * scale / std
	}
	return mul, bias
}

func (n *Normalize) into(dst []float32, img view, mirror bool, r *rand.Rand) {
	ch, h, w := img.ch, img.h, img.w
	if len(dst) != ch*h*w || ch > 4 {
		panic(fmt.Sprintf("augment: Normalize.Into: %d values for a %dx%dx%d image", len(dst), h, w, ch))
	}
	if n.MeanImage != nil && len(n.MeanImage) != len(dst) {
		panic(fmt.Sprintf("augment: Normalize.Into: mean image of %d values for %d", len(n.MeanImage), len(dst)))
	}
	mul, bias := n.Linear(ch, r)
	if n.MeanImage != nil {
		n.withMeanImage(dst, img, mirror, mul, bias)
		return
	}
	var lut [4][256]float32
	for c := range ch {
		for v := range 256 {
			lut[c][v] = (float32(v)-n.Mean[c])*mul[c] + bias[c]
		}
	}
	lutCHW(dst, img, mirror, &lut)
}

// lutCHW writes lut[c][pix] into dst in CHW order: one table load per
// value, with the three planes of an RGB image written in one sweep.
func lutCHW(dst []float32, img view, mirror bool, lut *[4][256]float32) {
	ch, h, w := img.ch, img.h, img.w
	plane := h * w
	if ch == 3 {
		l0, l1, l2 := &lut[0], &lut[1], &lut[2]
		for y := range h {
			s := img.pix[y*img.stride : y*img.stride+3*w]
			r0 := dst[y*w : (y+1)*w]
			r1 := dst[plane+y*w : plane+(y+1)*w]
			r2 := dst[2*plane+y*w : 2*plane+(y+1)*w]
			s, r1, r2 = s[:3*len(r0)], r1[:len(r0)], r2[:len(r0)]
			if mirror {
				// Written forwards, read backwards: the stores stream.
				for j := range r0 {
					i := 3 * (len(r0) - 1 - j)
					p := s[i : i+3 : i+3]
					r0[j], r1[j], r2[j] = l0[p[0]], l1[p[1]], l2[p[2]]
				}
				continue
			}
			for x := range r0 {
				p := s[3*x : 3*x+3 : 3*x+3]
				r0[x], r1[x], r2[x] = l0[p[0]], l1[p[1]], l2[p[2]]
			}
		}
		return
	}
	for c := range ch {
		l := &lut[c]
		for y := range h {
			s := img.pix[y*img.stride+c : y*img.stride+ch*w]
			row := dst[c*plane+y*w : c*plane+(y+1)*w]
			n := len(row)
			for j := range row {
				x := j
				if mirror {
					x = n - 1 - j // stores forwards, loads backwards
				}
				row[j] = l[s[ch*x]]
			}
		}
	}
}

func (n *Normalize) withMeanImage(dst []float32, img view, mirror bool, mul, bias [4]float32) {
	ch, h, w := img.ch, img.h, img.w
	plane := h * w
	for c := range ch {
		d := dst[c*plane : (c+1)*plane]
		mean := n.MeanImage[c*plane : (c+1)*plane]
		for y := range h {
			src := img.pix[y*img.stride : y*img.stride+w*ch]
			for dx := range w {
				// MXNet subtracts the mean at the source position, then
				// writes the value at the mirrored one.
				x := dx
				if mirror {
					x = w - 1 - dx
				}
				d[y*w+dx] = (float32(src[x*ch+c])-mean[y*w+x])*mul[c] + bias[c]
			}
		}
	}
}
