package augment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Interp is an interpolation method for resizing and affine warps. The
// zero value is Bilinear, MXNet's default (inter_method=1).
type Interp uint8

// The interpolation methods of MXNet's inter_method, in tensorfeed's order.
const (
	Bilinear     Interp = iota // 2x2 taps (MXNet 1)
	Nearest                    // nearest neighbour (MXNet 0)
	Bicubic                    // 4x4 taps, a = -0.75 as OpenCV (MXNet 2)
	Area                       // pixel-area average when shrinking, bilinear when enlarging (MXNet 3)
	Lanczos                    // 8x8 Lanczos taps (MXNet 4)
	AutoInterp                 // Bicubic to enlarge, Area to shrink, else Bilinear (MXNet 9)
	RandomInterp               // one of the first five, drawn per image (MXNet 10)
)

var interpNames = [...]string{"bilinear", "nearest", "bicubic", "area", "lanczos", "auto", "random"}

// String returns the method's name.
func (m Interp) String() string {
	if int(m) < len(interpNames) {
		return interpNames[m]
	}
	return fmt.Sprintf("Interp(%d)", m)
}

// pick resolves AutoInterp and RandomInterp for a resize from sw x sh to
// dw x dh, drawing from r for RandomInterp only; other methods are
// returned as they are.
func (m Interp) pick(sw, sh, dw, dh int, r *rand.Rand) Interp {
	switch m {
	case AutoInterp:
		switch {
		case dw > sw && dh > sh:
			return Bicubic
		case dw < sw && dh < sh:
			return Area
		}
		return Bilinear
	case RandomInterp:
		return [...]Interp{Nearest, Bilinear, Bicubic, Area, Lanczos}[r.IntN(5)]
	}
	return m
}

// ShorterSide returns the size of a w x h image resized so that its shorter
// side is size, keeping the aspect ratio with MXNet's integer rounding.
func ShorterSide(w, h, size int) (int, int) {
	if h > w {
		return size, size * h / w
	}
	return size * w / h, size
}

// Resize returns an Aug that resizes the image so that its shorter side is
// size pixels (MXNet's resize), with the given interpolation.
// It panics if size < 1.
func Resize(size int, interp Interp) Aug {
	if size < 1 {
		panic(fmt.Sprintf("augment: Resize: size %d < 1", size))
	}
	return func(img sample.Image, r *rand.Rand) (sample.Image, error) {
		w, h := ShorterSide(img.Width, img.Height, size)
		return ResizeImage(img, w, h, interp.pick(img.Width, img.Height, w, h, r)), nil
	}
}

// ResizeTo returns an Aug that resizes the image to width x height.
// It panics if either is < 1.
func ResizeTo(width, height int, interp Interp) Aug {
	if width < 1 || height < 1 {
		panic(fmt.Sprintf("augment: ResizeTo: size %dx%d", width, height))
	}
	return func(img sample.Image, r *rand.Rand) (sample.Image, error) {
		return ResizeImage(img, width, height, interp.pick(img.Width, img.Height, width, height, r)), nil
	}
}

// ResizeImage returns img resized to width x height. Pixel centres are
// aligned as OpenCV's resize aligns them; borders replicate the edge pixel.
// AutoInterp is resolved here; RandomInterp acts as Bilinear (use Resize
// for a drawn method). It panics if width or height is < 1.
func ResizeImage(img sample.Image, width, height int, interp Interp) sample.Image {
	if width < 1 || height < 1 {
		panic(fmt.Sprintf("augment: ResizeImage: size %dx%d", width, height))
	}
	if interp == AutoInterp || interp == RandomInterp {
		interp = AutoInterp.pick(img.Width, img.Height, width, height, nil)
	}
	if width == img.Width && height == img.Height {
		out := sample.NewImage(height, width, img.Channels)
		copy(out.Pix, img.Pix)
		return out
	}
	ch := img.Channels
	kx := kernel(img.Width, width, interp)
	ky := kernel(img.Height, height, interp)
	// Horizontal pass: img.Height rows of width pixels, in float32.
	tmp := make([]float32, img.Height*width*ch)
	for y := range img.Height {
		src := img.Pix[y*img.Width*ch : (y+1)*img.Width*ch]
		dst := tmp[y*width*ch : (y+1)*width*ch]
		for x := range width {
			idx := kx.idx[x*kx.taps : (x+1)*kx.taps]
			wt := kx.w[x*kx.taps : (x+1)*kx.taps]
			for c := range ch {
				var s float32
				for t, i := range idx {
					s += wt[t] * float32(src[int(i)*ch+c])
				}
				dst[x*ch+c] = s
			}
		}
	}
	// Vertical pass.
	out := sample.NewImage(height, width, ch)
	rowLen := width * ch
	acc := make([]float32, rowLen)
	for y := range height {
		clear(acc)
		idx := ky.idx[y*ky.taps : (y+1)*ky.taps]
		wt := ky.w[y*ky.taps : (y+1)*ky.taps]
		for t, i := range idx {
			w := wt[t]
			if w == 0 {
				continue
			}
			row := tmp[int(i)*rowLen : (int(i)+1)*rowLen]
			for j, v := range row {
				acc[j] += w * v
			}
		}
		dst := out.Pix[y*rowLen : (y+1)*rowLen]
		for j, v := range acc {
			dst[j] = clampU8(v)
		}
	}
	return out
}

// clampU8 rounds v to the nearest uint8.
func clampU8(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// taps holds, for each output coordinate, taps source indices and weights.
type taps struct {
	taps int
	idx  []int32
	w    []float32
}

// kernel computes the taps that map n source pixels to m output pixels.
func kernel(n, m int, interp Interp) taps {
	scale := float64(n) / float64(m)
	if interp == Area && scale <= 1 {
		interp = Bilinear
	}
	switch interp {
	case Nearest:
		k := taps{taps: 1, idx: make([]int32, m), w: make([]float32, m)}
		for x := range m {
			k.idx[x] = int32(min(int(math.Floor(float64(x)*scale)), n-1))
			k.w[x] = 1
		}
		return k
	case Area:
		return areaKernel(n, m, scale)
	}
	var size int
	var f func(float64) float64
	switch interp {
	case Bicubic:
		size, f = 4, cubic
	case Lanczos:
		size, f = 8, lanczos4
	default:
		size, f = 2, func(t float64) float64 { return max(0, 1-math.Abs(t)) }
	}
	k := taps{taps: size, idx: make([]int32, m*size), w: make([]float32, m*size)}
	for x := range m {
		fx := (float64(x)+0.5)*scale - 0.5
		x0 := int(math.Floor(fx))
		a := fx - float64(x0)
		first := x0 - size/2 + 1
		var sum float64
		ws := make([]float64, size)
		for t := range size {
			ws[t] = f(float64(first+t-x0) - a)
			sum += ws[t]
		}
		for t := range size {
			i := min(max(first+t, 0), n-1)
			k.idx[x*size+t] = int32(i)
			k.w[x*size+t] = float32(ws[t] / sum)
		}
	}
	return k
}

// cubic is the Keys cubic with a = -0.75, as OpenCV's INTER_CUBIC.
func cubic(t float64) float64 {
	const a = -0.75
	t = math.Abs(t)
	switch {
	case t <= 1:
		return ((a+2)*t-(a+3))*t*t + 1
	case t < 2:
		return ((a*t-5*a)*t+8*a)*t - 4*a
	}
	return 0
}

// lanczos4 is the Lanczos window of size 4.
func lanczos4(t float64) float64 {
	if t == 0 {
		return 1
	}
	if t <= -4 || t >= 4 {
		return 0
	}
	pt := math.Pi * t
	return 4 * math.Sin(pt) * math.Sin(pt/4) / (pt * pt)
}

// areaKernel averages the source pixels each output pixel covers, with
// fractional weights at the edges (OpenCV's INTER_AREA when shrinking).
func areaKernel(n, m int, scale float64) taps {
	size := int(math.Ceil(scale)) + 1
	k := taps{taps: size, idx: make([]int32, m*size), w: make([]float32, m*size)}
	for x := range m {
		lo, hi := float64(x)*scale, float64(x+1)*scale
		i0 := int(math.Floor(lo))
		for t := range size {
			i := i0 + t
			cover := math.Min(hi, float64(i+1)) - math.Max(lo, float64(i))
			if i >= n || cover <= 0 {
				k.idx[x*size+t] = int32(min(i0, n-1))
				continue
			}
			k.idx[x*size+t] = int32(i)
			k.w[x*size+t] = float32(cover / scale)
		}
	}
	return k
}
