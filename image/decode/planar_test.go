//go:build turbojpeg && cgo

package decode_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/sample"
)

// planarWant converts rectangle r of img as DecodePlanar converts a crop.
func planarWant(img sample.Image, r image.Rectangle, p decode.Planar) []float32 {
	w, h := r.Dx(), r.Dy()
	out := make([]float32, 3*w*h)
	for c := range 3 {
		for y := range h {
			for x := range w {
				v := img.Pix[((r.Min.Y+y)*img.Width+r.Min.X+x)*3+c]
				j := x
				if p.Mirror {
					j = w - 1 - x
				}
				f := float32(v) - p.Mean[c]
				f *= p.Mul[c]
				out[c*w*h+y*w+j] = f + p.Bias[c]
			}
		}
	}
	return out
}

// checkPlanar decodes data's crop r into a float32 tensor with dec and
// compares it, bit for bit, with the crop of the full decode through the
// same conversion.
func checkPlanar(t *testing.T, name string, pd decode.PlanarDecoder, data []byte, full sample.Image, r image.Rectangle, p decode.Planar) {
	t.Helper()
	// dst at a 32-byte boundary (where the conversion may write with
	// non-temporal stores) and one value past it (where it may not).
	n := 3 * r.Dx() * r.Dy()
	buf := make([]float32, n+16)
	at := int((32 - uintptr(unsafe.Pointer(&buf[0]))%32) % 32 / 4)
	for _, off := range []int{at, at + 1} {
		checkPlanarInto(t, fmt.Sprintf("%s, dst at +%d", name, off-at), pd, data, full, r, p, buf[off:off+n])
	}
}

func checkPlanarInto(t *testing.T, name string, pd decode.PlanarDecoder, data []byte, full sample.Image, r image.Rectangle, p decode.Planar, dst []float32) {
	t.Helper()
	calls := 0
	ok, err := pd.DecodePlanar(data, decode.Options{Channels: 3, Crop: func(int, int) (image.Rectangle, error) { return r, nil }},
		dst, func() decode.Planar { calls++; return p })
	if err != nil || !ok {
		t.Fatalf("%s, crop %v: ok %v, %v", name, r, ok, err)
	}
	if calls != 1 {
		t.Fatalf("%s: planar called %d times", name, calls)
	}
	want := planarWant(full, r, p)
	for i := range want {
		if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s, crop %v, mirror %v: value %d is %v, want %v", name, r, p.Mirror, i, dst[i], want[i])
		}
	}
}

// The planar decoder writes what the full decode's crop gives through the
// conversion, bit for bit, with each conversion the processor has (AVX2,
// SSSE3, one value at a time), for crops at the edges, inside, narrower than
// 16 pixels and of widths that are not multiples of 16, mirrored or not,
// on the test images and on photos of the benchmark set.
func TestDecodePlanarIdentical(t *testing.T) {
	pd, ok := decode.Default().(decode.PlanarDecoder)
	if !ok {
		t.Skip("the default decoder of this build writes no planar tensor")
	}
	// Colour JPEGs (4:2:0) of odd sizes, the gray digits of the test
	// records, and some photos of the benchmark set when present.
	var images [][]byte
	gen := rand.New(rand.NewPCG(7, 8))
	for _, size := range [][2]int{{67, 45}, {16, 16}, {241, 97}} {
		m := image.NewRGBA(image.Rect(0, 0, size[0], size[1]))
		for i := range m.Pix {
			m.Pix[i] = uint8(gen.IntN(256))
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		images = append(images, buf.Bytes())
	}
	digits := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_jpg", ".rec"))
	images = append(images, digits[:3]...)
	if !testing.Short() {
		images = append(images, photosIfPresent(t)...)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	p := decode.Planar{Mean: [4]float32{123.68, 116.28, 103.53}, Mul: [4]float32{1 / 58.395, 1 / 57.12, 1 / 57.375},
		Bias: [4]float32{0.25, -0.5, 0}}
	for i, data := range images {
		full, err := decode.Default().Decode(data, decode.Options{Channels: 3})
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		w, h := full.Width, full.Height
		rects := []image.Rectangle{image.Rect(0, 0, w, h), image.Rect(0, 0, min(w, 17), min(h, 5)),
			image.Rect(w-min(w, 33), h-min(h, 7), w, h), image.Rect(w-1, 0, w, h)}
		// Widths and planes of whole 8 and 16 values, as a 224x224 crop's.
		for _, side := range []int{8, 16, 224} {
			if side <= w && side <= h {
				x0, y0 := rng.IntN(w-side+1), rng.IntN(h-side+1)
				rects = append(rects, image.Rect(x0, y0, x0+side, y0+side), image.Rect(x0, y0, x0+side, y0+side/8))
			}
		}
		for range 4 {
			x0, y0 := rng.IntN(w), rng.IntN(h)
			rects = append(rects, image.Rect(x0, y0, x0+1+rng.IntN(w-x0), y0+1+rng.IntN(h-y0)))
		}
		for k, r := range rects {
			for _, simd := range []int{2, 1, 0} {
				old := decode.SetPlanarSIMD(simd)
				name := fmt.Sprintf("image %d, SIMD level %d", i, simd)
				p.Mirror = k%2 == 1
				checkPlanar(t, name, pd, data, full, r, p)
				p.Mirror = !p.Mirror
				checkPlanar(t, name, pd, data, full, r, p)
				decode.SetPlanarSIMD(old)
			}
		}
	}
}

// photosIfPresent returns every 97th photo of the benchmark set, or none
// when it is absent.
func photosIfPresent(t *testing.T) [][]byte {
	var photos [][]byte
	t.Run("photos", func(t *testing.T) {
		all := recimages.ImageBytes(t, recimages.Photos(t))
		for i := 0; i < len(all); i += 97 {
			photos = append(photos, all[i])
		}
	})
	return photos
}

// The planar decoder declines what it does not decode itself, without
// calling Crop: a PNG, and channels other than 3.
func TestDecodePlanarDeclines(t *testing.T) {
	pd, ok := decode.Default().(decode.PlanarDecoder)
	if !ok {
		t.Skip("the default decoder of this build writes no planar tensor")
	}
	png := encodePNG(t, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	jpg := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_jpg", ".rec"))[0]
	crop := func(int, int) (image.Rectangle, error) { t.Fatal("Crop called"); return image.Rectangle{}, nil }
	for _, c := range []struct {
		data []byte
		ch   int
	}{{png, 3}, {jpg, 1}, {jpg, 4}} {
		ok, err := pd.DecodePlanar(c.data, decode.Options{Channels: c.ch, Crop: crop}, nil,
			func() decode.Planar { t.Fatal("planar called"); return decode.Planar{} })
		if ok || err != nil {
			t.Fatalf("%d channels: ok %v, %v", c.ch, ok, err)
		}
	}
}

// FuzzDecodePlanar feeds arbitrary bytes and crops to DecodePlanar: it must
// never panic, and must either decline (calling nothing), fail with an
// error wrapping ErrImage or ErrSize, or write what DecodeRegion's crop
// gives through the conversion, bit for bit.
func FuzzDecodePlanar(f *testing.F) {
	for _, data := range recimages.ImageBytes(f, tdPath("mnist_t10k_1000_jpg", ".rec"))[:3] {
		f.Add(data, uint16(3), uint16(2), uint16(20), uint16(25), true)
		f.Add(data[:len(data)/2], uint16(0), uint16(0), uint16(28), uint16(28), false)
	}
	var buf bytes.Buffer
	m := image.NewRGBA(image.Rect(0, 0, 40, 24))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 37)
	}
	if err := jpeg.Encode(&buf, m, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes(), uint16(1), uint16(1), uint16(39), uint16(17), true)
	f.Fuzz(func(t *testing.T, data []byte, x, y, w, h uint16, mirror bool) {
		pd, ok := decode.Default().(decode.PlanarDecoder)
		if !ok {
			t.Skip()
		}
		r := image.Rect(int(x), int(y), int(x)+int(w), int(y)+int(h))
		opts := decode.Options{Channels: 3, MaxPixels: 1 << 20, Crop: func(int, int) (image.Rectangle, error) { return r, nil }}
		p := decode.Planar{Mean: [4]float32{100, 50, 3}, Mul: [4]float32{0.5, 2, 1.0 / 3}, Bias: [4]float32{1, 0, -1}, Mirror: mirror}
		var dst []float32
		if !r.Empty() && r.Dx() <= 1024 && r.Dy() <= 1024 {
			dst = make([]float32, 3*r.Dx()*r.Dy())
		}
		if dst == nil {
			return
		}
		ok, err := pd.DecodePlanar(data, opts, dst, func() decode.Planar { return p })
		if !ok {
			return
		}
		img, rect, release, rerr := pd.(decode.RegionDecoder).DecodeRegion(data, opts)
		if (err == nil) != (rerr == nil) {
			t.Fatalf("DecodePlanar: %v, DecodeRegion: %v", err, rerr)
		}
		if err != nil {
			if !errors.Is(err, decode.ErrImage) && !errors.Is(err, decode.ErrSize) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		want := planarWant(img, rect, p)
		release()
		for i := range want {
			if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
				t.Fatalf("value %d is %v, want %v", i, dst[i], want[i])
			}
		}
	})
}
