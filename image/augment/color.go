package augment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/internal/channels"
	"github.com/tensorfeed/tensorfeed/sample"
)

// ColorJitter returns an Aug that shifts hue, saturation and lightness by
// amounts drawn uniformly from [-h, h], [-s, s] and [-l, l] (MXNet's
// random_h, random_s, random_l). The units are OpenCV's 8-bit HLS ones: hue
// in [0, 180], saturation and lightness in [0, 255]; shifted values are
// clamped to those ranges, not wrapped, as MXNet does. A gray image is
// shifted in lightness only; alpha is kept. It panics on a negative amount.
func ColorJitter(h, s, l int) Aug {
	if h < 0 || s < 0 || l < 0 {
		panic(fmt.Sprintf("augment: ColorJitter(%d, %d, %d): negative amount", h, s, l))
	}
	return func(img sample.Image, r *rand.Rand) (sample.Image, error) {
		if h == 0 && s == 0 && l == 0 {
			return img, nil
		}
		dh, ds, dl := drawHSL(h, s, l, r)
		out := sample.Image{Height: img.Height, Width: img.Width, Channels: img.Channels,
			Pix: append([]uint8(nil), img.Pix...)}
		shiftHLS(out, dh, ds, dl)
		return out, nil
	}
}

// drawHSL draws the three shifts as MXNet does (truncated towards zero).
func drawHSL(h, s, l int, r *rand.Rand) (dh, ds, dl int) {
	draw := func(m int) int { return int(r.Float32()*float32(m)*2 - float32(m)) }
	dh = draw(h)
	ds = draw(s)
	dl = draw(l)
	return dh, ds, dl
}

// shiftHLS shifts img's pixels in place.
func shiftHLS(img sample.Image, dh, ds, dl int) {
	ch := img.Channels
	if ch < 3 {
		for i, v := range img.Pix {
			img.Pix[i] = uint8(min(max(int(v)+dl, 0), 255))
		}
		return
	}
	for i := 0; i+2 < len(img.Pix); i += ch {
		H, L, S := rgbToHLS(img.Pix[i], img.Pix[i+1], img.Pix[i+2])
		H = min(max(H+dh, 0), 180)
		L = min(max(L+dl, 0), 255)
		S = min(max(S+ds, 0), 255)
		img.Pix[i], img.Pix[i+1], img.Pix[i+2] = hlsToRGB(H, L, S)
	}
}

// rgbToHLS converts to OpenCV's 8-bit HLS: H in [0, 180), L and S in [0, 255].
func rgbToHLS(r8, g8, b8 uint8) (h, l, s int) {
	r, g, b := float64(r8)/255, float64(g8)/255, float64(b8)/255
	vmax := max(r, g, b)
	vmin := min(r, g, b)
	diff := vmax - vmin
	lf := (vmax + vmin) / 2
	var hf, sf float64
	if diff > 1e-7 {
		if lf < 0.5 {
			sf = diff / (vmax + vmin)
		} else {
			sf = diff / (2 - vmax - vmin)
		}
		switch vmax {
		case r:
			hf = (g - b) * 60 / diff
		case g:
			hf = (b-r)*60/diff + 120
		default:
			hf = (r-g)*60/diff + 240
		}
		if hf < 0 {
			hf += 360
		}
	}
	return int(math.Round(hf / 2)), int(math.Round(lf * 255)), int(math.Round(sf * 255))
}

// hlsToRGB converts back from OpenCV's 8-bit HLS.
func hlsToRGB(h, l, s int) (uint8, uint8, uint8) {
	lf, sf := float64(l)/255, float64(s)/255
	if sf == 0 {
		v := clampU8(float32(lf * 255))
		return v, v, v
	}
	var p2 float64
	if lf <= 0.5 {
		p2 = lf * (1 + sf)
	} else {
		p2 = lf + sf - lf*sf
	}
	p1 := 2*lf - p2
	hh := float64(h) * 2 / 60 // sextant in [0, 6]
	channel := func(t float64) float64 {
		t = math.Mod(t, 6)
		if t < 0 {
			t += 6
		}
		switch {
		case t < 1:
			return p1 + (p2-p1)*t
		case t < 3:
			return p2
		case t < 4:
			return p1 + (p2-p1)*(4-t)
		}
		return p1
	}
	return clampU8(float32(channel(hh+2) * 255)), clampU8(float32(channel(hh) * 255)), clampU8(float32(channel(hh-2) * 255))
}

// ToChannels returns an Aug that converts images to ch channels (1, 3 or
// 4): gray is repeated into R, G and B; colour becomes gray with OpenCV's
// weights 0.299, 0.587, 0.114; alpha is dropped or set to 255. It panics
// if ch is not 1, 3 or 4.
func ToChannels(ch int) Aug {
	if ch != 1 && ch != 3 && ch != 4 {
		panic(fmt.Sprintf("augment: ToChannels: %d channels (want 1, 3 or 4)", ch))
	}
	return func(img sample.Image, _ *rand.Rand) (sample.Image, error) {
		return channels.Convert(img, ch), nil
	}
}
