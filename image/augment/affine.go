package augment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
)

// Affine holds the parameters of MXNet's random affine augmentation
// (rotation, shear, scale and aspect ratio in one warp). The zero value
// does nothing.
type Affine struct {
	// MaxRotateAngle rotates by a whole number of degrees drawn from
	// [-MaxRotateAngle, MaxRotateAngle] (max_rotate_angle).
	MaxRotateAngle int
	// Rotate, when positive, is a fixed angle that replaces the drawn one
	// (rotate).
	Rotate int
	// MaxShearRatio shears x by m*y with m drawn from [-v, v]
	// (max_shear_ratio).
	MaxShearRatio float32
	// MinRandomScale and MaxRandomScale bound the scale factor s, drawn
	// uniformly; the output is s*W x s*H (min_random_scale,
	// max_random_scale). Zero means 1.
	MinRandomScale, MaxRandomScale float32
	// MaxAspectRatio changes width/height by a ratio drawn from
	// [1-v, 1+v] (max_aspect_ratio).
	MaxAspectRatio float32
	// MinImgSize and MaxImgSize clamp the output width and height after
	// scaling (min_img_size, max_img_size). Zero means no bound.
	MinImgSize, MaxImgSize float32
	// Fill is the value of pixels that fall outside the source (fill_value;
	// MXNet's default is 255).
	Fill uint8
	// Interp samples the source: Nearest, or bilinear for every other
	// method (OpenCV's warpAffine also samples Area as bilinear; Bicubic and
	// Lanczos are approximated by it here). AutoInterp and RandomInterp
	// are resolved as for a resize.
	Interp Interp
}

// scales returns the scale bounds with zero meaning 1.
func (a Affine) scales() (lo, hi float32) {
	lo, hi = a.MinRandomScale, a.MaxRandomScale
	if lo == 0 {
		lo = 1
	}
	if hi == 0 {
		hi = 1
	}
	return lo, hi
}

// Enabled reports whether the warp changes anything: MXNet applies it when
// any of its parameters differs from its default.
func (a Affine) Enabled() bool {
	lo, hi := a.scales()
	return a.MaxRotateAngle > 0 || a.Rotate > 0 || a.MaxShearRatio > 0 || lo != 1 || hi != 1 ||
		a.MaxAspectRatio != 0 || a.MinImgSize != 0 || a.MaxImgSize != 0
}

// RandomAffine returns an Aug that warps each image with a random affine
// transform, as MXNet's default augmenter does: draws, in order, the shear,
// the angle, the scale and the aspect ratio; the output keeps the centre and
// is s*W x s*H (clamped to the size bounds). An Affine that is not Enabled
// returns images unchanged. It panics on a negative angle or ratio, or a
// scale range with min > max.
func RandomAffine(a Affine) Aug {
	if err := a.Check(); err != nil {
		panic("augment: RandomAffine: " + err.Error())
	}
	if !a.Enabled() {
		return func(img sample.Image, _ *rand.Rand) (sample.Image, error) { return img, nil }
	}
	return a.warp
}

// Check reports parameters RandomAffine refuses: a negative angle or
// ratio, or a scale range with min > max.
func (a Affine) Check() error {
	lo, hi := a.scales()
	if a.MaxRotateAngle < 0 || a.MaxShearRatio < 0 || a.MaxAspectRatio < 0 || lo > hi || lo < 0 {
		return fmt.Errorf("bad affine parameters %+v (negative angle or ratio, or MinRandomScale > MaxRandomScale)", a)
	}
	return nil
}

// warp warps img once, drawing from r: the Aug of RandomAffine for an
// Enabled a. The output is a new image; an output smaller than one pixel
// gives an error wrapping decode.ErrSize.
func (a Affine) warp(img sample.Image, r *rand.Rand) (sample.Image, error) {
	lo, hi := a.scales()
	s := float64(r.Float32()*a.MaxShearRatio*2 - a.MaxShearRatio)
	angle := 0
	if a.MaxRotateAngle > 0 {
		angle = r.IntN(2*a.MaxRotateAngle+1) - a.MaxRotateAngle
	}
	if a.Rotate > 0 {
		angle = a.Rotate
	}
	ca := math.Cos(float64(angle) / 180 * math.Pi)
	sa := math.Sin(float64(angle) / 180 * math.Pi)
	scale := float64(r.Float32()*(hi-lo) + lo)
	ratio := float64(r.Float32()*a.MaxAspectRatio*2 - a.MaxAspectRatio + 1)
	hs := 2 * scale / (1 + ratio)
	ws := ratio * hs
	maxSize := float64(a.MaxImgSize)
	if maxSize == 0 {
		maxSize = math.Inf(1)
	}
	nw := max(float64(a.MinImgSize), min(maxSize, scale*float64(img.Width)))
	nh := max(float64(a.MinImgSize), min(maxSize, scale*float64(img.Height)))
	W, H := int(nw), int(nh)
	if W < 1 || H < 1 {
		return img, fmt.Errorf("%w: affine output %dx%d", decode.ErrSize, W, H)
	}
	m00 := hs*ca - s*sa*ws
	m10 := -sa * ws
	m01 := hs*sa + s*ca*ws
	m11 := ca * ws
	cx := m00*float64(img.Width) + m01*float64(img.Height)
	cy := m10*float64(img.Width) + m11*float64(img.Height)
	m02 := (nw - cx) / 2
	m12 := (nh - cy) / 2
	interp := a.Interp.pick(img.Width, img.Height, W, H, r)
	return warpAffine(img, [6]float64{m00, m01, m02, m10, m11, m12}, W, H, interp == Nearest, a.Fill), nil
}

// warpAffine maps img through the forward transform m (x' = m0 x + m1 y +
// m2, y' = m3 x + m4 y + m5) into a w x h image, sampling the source at the
// inverse image of each output pixel; outside pixels take fill.
func warpAffine(img sample.Image, m [6]float64, w, h int, nearest bool, fill uint8) sample.Image {
	det := m[0]*m[4] - m[1]*m[3]
	out := sample.NewImage(h, w, img.Channels)
	if det == 0 {
		for i := range out.Pix {
			out.Pix[i] = fill
		}
		return out
	}
	i00, i01 := m[4]/det, -m[1]/det
	i10, i11 := -m[3]/det, m[0]/det
	i02 := -(i00*m[2] + i01*m[5])
	i12 := -(i10*m[2] + i11*m[5])
	ch := img.Channels
	at := func(x, y, c int) float64 {
		if x < 0 || y < 0 || x >= img.Width || y >= img.Height {
			return float64(fill)
		}
		return float64(img.Pix[(y*img.Width+x)*ch+c])
	}
	o := 0
	for y := range h {
		for x := range w {
			u := i00*float64(x) + i01*float64(y) + i02
			v := i10*float64(x) + i11*float64(y) + i12
			if nearest {
				xi, yi := int(math.Round(u)), int(math.Round(v))
				for c := range ch {
					out.Pix[o+c] = uint8(at(xi, yi, c))
				}
			} else {
				x0, y0 := int(math.Floor(u)), int(math.Floor(v))
				ax, ay := u-float64(x0), v-float64(y0)
				for c := range ch {
					top := at(x0, y0, c)*(1-ax) + at(x0+1, y0, c)*ax
					bot := at(x0, y0+1, c)*(1-ax) + at(x0+1, y0+1, c)*ax
					out.Pix[o+c] = clampU8(float32(top*(1-ay) + bot*ay))
				}
			}
			o += ch
		}
	}
	return out
}
