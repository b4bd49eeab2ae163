package augment_test

import (
	"errors"
	"image"
	"math"
	"reflect"
	"testing"

	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// ramp returns an image whose pixel (y, x) channel c is 100*c + 10*y + x.
func ramp(h, w, ch int) sample.Image {
	m := sample.NewImage(h, w, ch)
	for y := range h {
		for x := range w {
			for c := range ch {
				m.Pix[(y*w+x)*ch+c] = uint8(100*c + 10*y + x)
			}
		}
	}
	return m
}

func mustAug(t *testing.T, a augment.Aug, img sample.Image, seed uint64, index int) sample.Image {
	t.Helper()
	out, err := a(img, source.NewRand(seed, 0, index))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCrops(t *testing.T) {
	img := ramp(5, 6, 2)
	got := mustAug(t, augment.Crop(1, 2, 3, 2), img, 0, 0)
	if got.Width != 3 || got.Height != 2 || got.At(0, 0, 0) != 21 || got.At(1, 2, 1) != 133 {
		t.Errorf("Crop: %v %v", got.Shape(), got.Pix)
	}
	got = mustAug(t, augment.CenterCrop(3, 2), img, 0, 0)
	if got.At(0, 0, 0) != 11 { // offset ((6-3)/2, (5-2)/2) = (1, 1)
		t.Errorf("CenterCrop: top-left %d, want 11", got.At(0, 0, 0))
	}
	// RandomCrop reaches every position and keeps the image's content.
	seen := map[uint8]bool{}
	for i := range 500 {
		c := mustAug(t, augment.RandomCrop(4, 3), img, 7, i)
		x, y := int(c.At(0, 0, 0)%10), int(c.At(0, 0, 0)/10)
		if !sameImage(c, augment.CropImage(img, image.Rect(x, y, x+4, y+3))) {
			t.Fatalf("RandomCrop %d is not a crop at (%d, %d)", i, x, y)
		}
		seen[c.At(0, 0, 0)] = true
	}
	if len(seen) != 3*3 {
		t.Errorf("RandomCrop reached %d positions, want 9", len(seen))
	}
	// Same seed and index: same crop.
	if !sameImage(mustAug(t, augment.RandomCrop(2, 2), img, 1, 5), mustAug(t, augment.RandomCrop(2, 2), img, 1, 5)) {
		t.Error("RandomCrop is not repeatable")
	}
	for name, a := range map[string]augment.Aug{
		"Crop":       augment.Crop(4, 0, 3, 1),
		"CenterCrop": augment.CenterCrop(7, 1),
		"RandomCrop": augment.RandomCrop(1, 6),
	} {
		if _, err := a(img, source.NewRand(0, 0, 0)); !errors.Is(err, decode.ErrSize) {
			t.Errorf("%s larger than the image: %v, want ErrSize", name, err)
		}
	}
}

func TestPad(t *testing.T) {
	img := ramp(1, 2, 1)
	got := mustAug(t, augment.Pad(1, 9), img, 0, 0)
	want := []uint8{9, 9, 9, 9, 9, 0, 1, 9, 9, 9, 9, 9}
	if got.Height != 3 || got.Width != 4 || !reflect.DeepEqual(got.Pix, want) {
		t.Errorf("Pad: %v %v", got.Shape(), got.Pix)
	}
}

func TestMirror(t *testing.T) {
	img := ramp(2, 3, 2)
	got := mustAug(t, augment.Mirror(), img, 0, 0)
	for y := range 2 {
		for x := range 3 {
			for c := range 2 {
				if got.At(y, x, c) != img.At(y, 2-x, c) {
					t.Fatalf("Mirror: pixel (%d,%d,%d) = %d", y, x, c, got.At(y, x, c))
				}
			}
		}
	}
	if img.At(0, 0, 0) != 0 {
		t.Fatal("Mirror modified its input")
	}
	flipped := 0
	for i := range 1000 {
		if mustAug(t, augment.RandomMirror(), img, 3, i).At(0, 0, 0) != 0 {
			flipped++
		}
	}
	if flipped < 430 || flipped > 570 {
		t.Errorf("RandomMirror flipped %d of 1000", flipped)
	}
}

func TestResize(t *testing.T) {
	// 2x2 to 4x4 bilinear with OpenCV's half-pixel alignment.
	img := sample.Image{Height: 2, Width: 2, Channels: 1, Pix: []uint8{0, 100, 200, 40}}
	got := augment.ResizeImage(img, 4, 4, augment.Bilinear)
	// Corners keep their values; edges interpolate at 1/4 and 3/4.
	if got.At(0, 0, 0) != 0 || got.At(0, 3, 0) != 100 || got.At(3, 0, 0) != 200 || got.At(3, 3, 0) != 40 {
		t.Errorf("bilinear corners: %v", got.Pix)
	}
	if got.At(0, 1, 0) != 25 || got.At(0, 2, 0) != 75 || got.At(1, 0, 0) != 50 {
		t.Errorf("bilinear edges: %v", got.Pix)
	}
	// Nearest picks source pixels.
	got = augment.ResizeImage(img, 4, 4, augment.Nearest)
	if got.At(0, 1, 0) != 0 || got.At(0, 2, 0) != 100 || got.At(2, 0, 0) != 200 {
		t.Errorf("nearest: %v", got.Pix)
	}
	// Area halving averages 2x2 blocks exactly.
	big := ramp(4, 4, 1)
	got = augment.ResizeImage(big, 2, 2, augment.Area)
	if wantArea := []uint8{6, 8, 26, 28}; !reflect.DeepEqual(got.Pix, wantArea) { // (0+1+10+11)/4 = 5.5 -> 6
		t.Errorf("area: %v, want %v", got.Pix, wantArea)
	}
	// A constant image stays constant with every method and size.
	flat := sample.NewImage(7, 9, 3)
	for i := range flat.Pix {
		flat.Pix[i] = 77
	}
	for m := augment.Bilinear; m <= augment.RandomInterp; m++ {
		for _, sz := range [][2]int{{3, 4}, {18, 14}, {9, 7}, {1, 1}} {
			out := augment.ResizeImage(flat, sz[0], sz[1], m)
			if out.Width != sz[0] || out.Height != sz[1] || out.Channels != 3 {
				t.Fatalf("%v to %v: shape %v", m, sz, out.Shape())
			}
			for _, v := range out.Pix {
				if v != 77 {
					t.Fatalf("%v to %v: constant image got value %d", m, sz, v)
				}
			}
		}
	}
	// Resize sets the shorter side with MXNet's rounding.
	for _, c := range [][4]int{{300, 200, 100, 150}, {200, 300, 100, 150}, {256, 256, 224, 224}, {341, 256, 224, 298}} {
		w, h := augment.ShorterSide(c[0], c[1], c[2])
		if min(w, h) != c[2] || max(w, h) != c[3] {
			t.Errorf("ShorterSide(%d, %d, %d) = %d, %d", c[0], c[1], c[2], w, h)
		}
		out := mustAug(t, augment.Resize(c[2], augment.AutoInterp), sample.NewImage(c[1], c[0], 1), 0, 0)
		if out.Width != w || out.Height != h {
			t.Errorf("Resize(%d) of %dx%d: %dx%d", c[2], c[0], c[1], out.Width, out.Height)
		}
	}
}

func TestRandomAffine(t *testing.T) {
	img := ramp(6, 8, 3)
	if got := mustAug(t, augment.RandomAffine(augment.Affine{}), img, 0, 0); !sameImage(got, img) {
		t.Error("zero Affine changed the image")
	}
	// A fixed 180-degree rotation turns the image around its centre.
	rot := augment.Affine{Rotate: 180, MinRandomScale: 1, MaxRandomScale: 1}
	if !rot.Enabled() {
		t.Fatal("Rotate 180 not enabled")
	}
	got := mustAug(t, augment.RandomAffine(rot), img, 0, 0)
	if got.Width != 8 || got.Height != 6 {
		t.Fatalf("rotated shape %v", got.Shape())
	}
	// MXNet's centring maps pixel (x, y) to (W-x, H-y): the pixel at
	// (x, y) comes from (8-x, 6-y), and row 0 / column 0 fall outside.
	for y := 1; y < 6; y++ {
		for x := 1; x < 8; x++ {
			if got.At(y, x, 1) != img.At(6-y, 8-x, 1) {
				t.Fatalf("rotated pixel (%d,%d) = %d, want %d", y, x, got.At(y, x, 1), img.At(6-y, 8-x, 1))
			}
		}
	}
	// Scaling by 2 doubles the size; the size bounds clamp it.
	got = mustAug(t, augment.RandomAffine(augment.Affine{MinRandomScale: 2, MaxRandomScale: 2}), img, 0, 0)
	if got.Width != 16 || got.Height != 12 {
		t.Errorf("scale 2: %v", got.Shape())
	}
	got = mustAug(t, augment.RandomAffine(augment.Affine{MinRandomScale: 2, MaxRandomScale: 2, MaxImgSize: 10}), img, 0, 0)
	if got.Width != 10 || got.Height != 10 {
		t.Errorf("scale 2, max 10: %v", got.Shape())
	}
	// Pixels from outside take the fill value.
	got = mustAug(t, augment.RandomAffine(augment.Affine{MaxRotateAngle: 45, Fill: 255, MaxAspectRatio: 0.3}), img, 0, 4)
	fills := 0
	for _, v := range got.Pix {
		if v == 255 {
			fills++
		}
	}
	if fills == 0 {
		t.Error("rotation left no fill pixels")
	}
	// Random draws repeat with the seed and index.
	a := augment.RandomAffine(augment.Affine{MaxRotateAngle: 30, MaxShearRatio: 0.2, MinRandomScale: 0.8, MaxRandomScale: 1.2})
	if !sameImage(mustAug(t, a, img, 9, 1), mustAug(t, a, img, 9, 1)) {
		t.Error("RandomAffine is not repeatable")
	}
}

func TestColorJitter(t *testing.T) {
	img := ramp(4, 5, 3)
	if got := mustAug(t, augment.ColorJitter(0, 0, 0), img, 0, 0); !sameImage(got, img) {
		t.Error("ColorJitter(0, 0, 0) changed the image")
	}
	// Lightness only: gray pixels move by the drawn amount, clamped.
	gray := sample.Image{Height: 1, Width: 3, Channels: 3, Pix: []uint8{0, 0, 0, 128, 128, 128, 250, 250, 250}}
	for i := range 50 {
		got := mustAug(t, augment.ColorJitter(0, 0, 20), gray, 1, i)
		d := int(got.Pix[3]) - 128
		if d < -20 || d > 20 || got.Pix[3] != got.Pix[4] || got.Pix[4] != got.Pix[5] {
			t.Fatalf("lightness shift %d: %v", d, got.Pix)
		}
		if got.Pix[0] != uint8(max(d, 0)) || got.Pix[6] != uint8(min(250+d, 255)) {
			t.Fatalf("clamping with shift %d: %v", d, got.Pix)
		}
	}
	// A hue shift keeps lightness roughly and changes the colour.
	red := sample.Image{Height: 1, Width: 1, Channels: 3, Pix: []uint8{200, 30, 30}}
	changed := false
	for i := range 20 {
		got := mustAug(t, augment.ColorJitter(60, 0, 0), red, 2, i)
		mx, mn := max(got.Pix[0], got.Pix[1], got.Pix[2]), min(got.Pix[0], got.Pix[1], got.Pix[2])
		if absDiff(mx, 200) > 2 || absDiff(mn, 30) > 2 {
			t.Fatalf("hue shift changed lightness or saturation: %v", got.Pix)
		}
		if got.Pix[0] != 200 {
			changed = true
		}
	}
	if !changed {
		t.Error("hue shifts never changed the colour")
	}
}

// Every RGB colour survives the trip through HLS within one level when
// nothing is shifted: checked through ColorJitter with a zero draw.
func TestColorJitterRoundTrip(t *testing.T) {
	img := sample.NewImage(1, 4096, 3)
	for i := range 4096 {
		img.Pix[3*i], img.Pix[3*i+1], img.Pix[3*i+2] = uint8(i*37), uint8(i*101>>2), uint8(i*13>>1)
	}
	// Find a seed whose draw is zero for all three (amount 1 draws in
	// {-1, 0, 1} truncated, mostly 0).
	for i := range 100 {
		got := mustAug(t, augment.ColorJitter(0, 0, 1), img, 5, i)
		if got.Pix[3] == img.Pix[3] && got.Pix[4] == img.Pix[4] {
			worst := 0
			for p := range img.Pix {
				worst = max(worst, absDiff(img.Pix[p], got.Pix[p]))
			}
			if worst > 3 {
				t.Fatalf("HLS round trip moved a value by %d", worst)
			}
			return
		}
	}
	t.Skip("no zero draw found")
}

func TestToChannels(t *testing.T) {
	rgb := sample.Image{Height: 1, Width: 2, Channels: 3, Pix: []uint8{255, 0, 0, 10, 200, 30}}
	gray := mustAug(t, augment.ToChannels(1), rgb, 0, 0)
	// OpenCV: 0.299*255 = 76.2; 0.299*10 + 0.587*200 + 0.114*30 = 123.8.
	if !reflect.DeepEqual(gray.Pix, []uint8{76, 124}) {
		t.Errorf("to gray: %v", gray.Pix)
	}
	rgba := mustAug(t, augment.ToChannels(4), rgb, 0, 0)
	if !reflect.DeepEqual(rgba.Pix, []uint8{255, 0, 0, 255, 10, 200, 30, 255}) {
		t.Errorf("to RGBA: %v", rgba.Pix)
	}
	back := mustAug(t, augment.ToChannels(3), rgba, 0, 0)
	if !sameImage(back, rgb) {
		t.Errorf("RGBA to RGB: %v", back.Pix)
	}
	g3 := mustAug(t, augment.ToChannels(3), gray, 0, 0)
	if g3.Pix[0] != 76 || g3.Pix[1] != 76 || g3.Pix[2] != 76 {
		t.Errorf("gray to RGB: %v", g3.Pix)
	}
}

func TestCompose(t *testing.T) {
	img := ramp(4, 6, 1)
	a := augment.Compose(augment.CenterCrop(4, 2), augment.Mirror())
	got := mustAug(t, a, img, 0, 0)
	if got.Width != 4 || got.At(0, 0, 0) != 14 { // crop at (1, 1), then flipped: first pixel is x=4
		t.Errorf("Compose: %v %v", got.Shape(), got.Pix)
	}
	_, err := augment.Compose(augment.CenterCrop(9, 9), augment.Mirror())(img, nil)
	if !errors.Is(err, decode.ErrSize) {
		t.Errorf("Compose stops at the error: %v", err)
	}
}

func TestNormalize(t *testing.T) {
	img := ramp(2, 3, 3)
	n := augment.Normalize{Mean: [4]float32{10, 20, 30}, Std: [4]float32{2, 4, 0}, Scale: 0.5}
	dst := make([]float32, 18)
	n.Into(dst, img, false, nil)
	for c := range 3 {
		std := []float32{2, 4, 1}[c]
		for y := range 2 {
			for x := range 3 {
				want := (float32(img.At(y, x, c)) - n.Mean[c]) * 0.5 / std
				if got := dst[c*6+y*3+x]; math.Abs(float64(got-want)) > 1e-5 {
					t.Fatalf("(%d,%d,%d) = %v, want %v", c, y, x, got, want)
				}
			}
		}
	}
	mir := make([]float32, 18)
	n.Into(mir, img, true, nil)
	for c := range 3 {
		for y := range 2 {
			for x := range 3 {
				if mir[c*6+y*3+x] != dst[c*6+y*3+2-x] {
					t.Fatalf("mirror (%d,%d,%d)", c, y, x)
				}
			}
		}
	}
	// A mean image is subtracted at the source position.
	mean := make([]float32, 18)
	for i := range mean {
		mean[i] = float32(i)
	}
	mi := augment.Normalize{MeanImage: mean}
	mi.Into(dst, img, true, nil)
	// Output (c=1, y=0, x=0) holds source pixel (0, 2) minus mean[1][0][2].
	if want := float32(img.At(0, 2, 1)) - mean[6+2]; dst[6] != want {
		t.Errorf("mean image: %v, want %v", dst[6], want)
	}
	// Contrast and illumination are drawn from the generator.
	rnd := augment.Normalize{MaxRandomContrast: 0.5, MaxRandomIllumination: 10}
	rnd.Into(dst, img, false, source.NewRand(1, 0, 0))
	plain := make([]float32, 18)
	(&augment.Normalize{}).Into(plain, img, false, nil)
	if reflect.DeepEqual(dst, plain) {
		t.Error("random contrast and illumination changed nothing")
	}
}
