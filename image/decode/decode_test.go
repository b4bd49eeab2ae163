package decode_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/sample"
)

func TestDefaultDecoderName(t *testing.T) {
	name := decode.Default().Name()
	if name != "go" && name != "turbojpeg" {
		t.Fatalf("DefaultDecoder().Name() = %q", name)
	}
	if got := decode.Go().Name(); got != "go" {
		t.Fatalf("GoDecoder().Name() = %q", got)
	}
	t.Logf("default decoder: %s", name)
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want decode.Format
	}{
		{[]byte{0xff, 0xd8, 0xff, 0xe0}, decode.FormatJPEG},
		{[]byte{0xff, 0xd8, 0xff, 0xe1}, decode.FormatJPEG}, // Exif
		{[]byte{0xff, 0xd8, 0xff, 0xdb}, decode.FormatJPEG}, // bare DQT
		{[]byte("\x89PNG\r\n\x1a\n...."), decode.FormatPNG},
		{[]byte("GIF89a"), decode.FormatUnknown},
		{nil, decode.FormatUnknown},
	} {
		if got := decode.Sniff(c.data); got != c.want {
			t.Errorf("Sniff(% x) = %v, want %v", c.data, got, c.want)
		}
	}
}

// The gray PNG records decode to 28x28 gray pixels; asking for 3 or 4
// channels repeats them, with alpha 255.
func TestDecodePNGGray(t *testing.T) {
	imgs := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_png_gray", ".rec"))
	for _, dec := range recimages.Decoders() {
		for i, data := range imgs[:50] {
			g, err := dec.Decode(data, decode.Options{})
			if err != nil {
				t.Fatalf("%s: image %d: %v", dec.Name(), i, err)
			}
			if g.Height != 28 || g.Width != 28 || g.Channels != 1 {
				t.Fatalf("%s: image %d: shape %v, want [28 28 1]", dec.Name(), i, g.Shape())
			}
			rgba, err := dec.Decode(data, decode.Options{Channels: 4})
			if err != nil {
				t.Fatal(err)
			}
			for p, v := range g.Pix {
				if q := rgba.Pix[4*p : 4*p+4]; q[0] != v || q[1] != v || q[2] != v || q[3] != 255 {
					t.Fatalf("%s: image %d pixel %d: %v from gray %d", dec.Name(), i, p, q, v)
				}
			}
		}
	}
}

// The JPEG records hold the same digits as the PNG ones, as 3-channel
// JPEG at quality 95: their decoded pixels are close to the lossless ones,
// and both decoders agree within a few levels.
func TestDecodeJPEGMatchesPNG(t *testing.T) {
	jpgs := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_jpg", ".rec"))
	pngs := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_png_gray", ".rec"))
	var ref []sample.Image
	for _, dec := range recimages.Decoders() {
		for i := range 100 {
			want, err := dec.Decode(pngs[i], decode.Options{Channels: 1})
			if err != nil {
				t.Fatal(err)
			}
			rgb, err := dec.Decode(jpgs[i], decode.Options{})
			if err != nil {
				t.Fatalf("%s: image %d: %v", dec.Name(), i, err)
			}
			if rgb.Channels != 3 || rgb.Height != 28 || rgb.Width != 28 {
				t.Fatalf("%s: image %d: shape %v, want [28 28 3]", dec.Name(), i, rgb.Shape())
			}
			gray, err := dec.Decode(jpgs[i], decode.Options{Channels: 1})
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for p := range want.Pix {
				sum += absDiff(gray.Pix[p], want.Pix[p])
			}
			if mean := float64(sum) / float64(len(want.Pix)); mean > 2 {
				t.Errorf("%s: image %d: gray JPEG differs from PNG by %.2f levels on average", dec.Name(), i, mean)
			}
			if len(ref) < 100 {
				ref = append(ref, rgb)
				continue
			}
			worst := 0
			for p := range rgb.Pix {
				worst = max(worst, absDiff(rgb.Pix[p], ref[i].Pix[p]))
			}
			if worst > 4 {
				t.Errorf("image %d: %s and go differ by up to %d levels", i, dec.Name(), worst)
			}
		}
	}
}

// A crop returns exactly the pixels of the same rectangle of the full
// image, for every channel count.
func TestDecodeCrop(t *testing.T) {
	imgs := [][]byte{
		recimages.ImageBytes(t, tdPath("mnist_t10k_1000_jpg", ".rec"))[3],
		recimages.ImageBytes(t, tdPath("mnist_t10k_1000_png_gray", ".rec"))[3],
		encodePNG(t, testNRGBA()),
	}
	rect := image.Rect(5, 7, 20, 16)
	for _, dec := range recimages.Decoders() {
		for k, data := range imgs {
			for _, ch := range []int{0, 1, 3, 4} {
				full, err := dec.Decode(data, decode.Options{Channels: ch})
				if err != nil {
					t.Fatal(err)
				}
				var gotW, gotH int
				crop, err := dec.Decode(data, decode.Options{Channels: ch,
					Crop: func(w, h int) (image.Rectangle, error) { gotW, gotH = w, h; return rect, nil }})
				if err != nil {
					t.Fatal(err)
				}
				if gotW != full.Width || gotH != full.Height {
					t.Errorf("%s: image %d: Crop saw %dx%d, image is %dx%d", dec.Name(), k, gotW, gotH, full.Width, full.Height)
				}
				want := augment.CropImage(full, rect)
				if !sameImage(crop, want) {
					t.Errorf("%s: image %d, %d channels: crop differs from the full image's rectangle", dec.Name(), k, ch)
				}
			}
		}
	}
}

func TestDecodeCropErrors(t *testing.T) {
	data := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_jpg", ".rec"))[0]
	boom := errors.New("boom")
	for _, dec := range recimages.Decoders() {
		_, err := dec.Decode(data, decode.Options{Crop: func(w, h int) (image.Rectangle, error) {
			return image.Rect(0, 0, w+1, h), nil
		}})
		if !errors.Is(err, decode.ErrSize) {
			t.Errorf("%s: crop outside the image: %v, want ErrSize", dec.Name(), err)
		}
		_, err = dec.Decode(data, decode.Options{Crop: func(w, h int) (image.Rectangle, error) {
			return image.Rectangle{}, boom
		}})
		if !errors.Is(err, boom) {
			t.Errorf("%s: error from Crop: %v, want boom", dec.Name(), err)
		}
	}
}

// Corrupt, truncated and unknown images give errors wrapping ErrImage, with
// every decoder.
func TestDecodeCorrupt(t *testing.T) {
	good := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_jpg", ".rec"))[0]
	goodPNG := recimages.ImageBytes(t, tdPath("mnist_t10k_1000_png_gray", ".rec"))[0]
	scrambled := append([]byte(nil), good...)
	for i := 200; i < len(scrambled)-2; i++ {
		scrambled[i] = 0xff // markers everywhere in the entropy-coded data
	}
	pngBad := append([]byte(nil), goodPNG...)
	pngBad[len(pngBad)/2] ^= 0xff // breaks a CRC
	cases := map[string][]byte{
		"empty":          nil,
		"gif":            []byte("GIF89a\x01\x00\x01\x00"),
		"jpeg SOI only":  {0xff, 0xd8},
		"jpeg truncated": good[:len(good)/2],
		"jpeg scrambled": scrambled,
		"png truncated":  goodPNG[:len(goodPNG)/2],
		"png bad crc":    pngBad,
	}
	for _, dec := range recimages.Decoders() {
		for name, data := range cases {
			for _, ch := range []int{0, 3} {
				img, err := dec.Decode(data, decode.Options{Channels: ch})
				if !errors.Is(err, decode.ErrImage) {
					t.Errorf("%s: %s: err = %v, want ErrImage (image %v)", dec.Name(), name, err, img.Shape())
				}
				// A failure leaves nothing behind that breaks the next image.
				if _, err := dec.Decode(good, decode.Options{Channels: ch}); err != nil {
					t.Errorf("%s: good image after %s: %v", dec.Name(), name, err)
				}
			}
		}
	}
}

// JPEGs without JFIF (bare DQT, as image/jpeg writes them) and with Exif
// decode like any other.
func TestDecodeJPEGVariants(t *testing.T) {
	src := testNRGBA()
	for i := 3; i < len(src.Pix); i += 4 {
		src.Pix[i] = 255 // opaque: JPEG has no alpha
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	bare := buf.Bytes()
	if !bytes.HasPrefix(bare, []byte{0xff, 0xd8, 0xff, 0xdb}) {
		t.Fatalf("image/jpeg output starts % x, expected a bare DQT", bare[:4])
	}
	exifBody := append([]byte("Exif\x00\x00II*\x00\x08\x00\x00\x00"), 0, 0, 0, 0, 0, 0)
	exif := append([]byte{0xff, 0xd8, 0xff, 0xe1, 0, byte(len(exifBody) + 2)}, exifBody...)
	exif = append(exif, bare[2:]...)
	for _, dec := range recimages.Decoders() {
		for name, data := range map[string][]byte{"bare": bare, "exif": exif} {
			img, err := dec.Decode(data, decode.Options{})
			if err != nil {
				t.Fatalf("%s: %s: %v", dec.Name(), name, err)
			}
			if img.Width != 32 || img.Height != 24 || img.Channels != 3 {
				t.Errorf("%s: %s: shape %v", dec.Name(), name, img.Shape())
			}
			// A flat area keeps its colour through JPEG.
			if r, g, b := img.At(2, 2, 0), img.At(2, 2, 1), img.At(2, 2, 2); absDiff(r, 200) > 6 || absDiff(g, 40) > 6 || absDiff(b, 90) > 6 {
				t.Errorf("%s: %s: pixel (2,2) = %d %d %d, want about 200 40 90", dec.Name(), name, r, g, b)
			}
		}
	}
}

// PNG colour types: RGBA with alpha keeps it with 0 channels and drops it
// with 3; paletted and 16-bit images decode too.
func TestDecodePNGTypes(t *testing.T) {
	nrgba := testNRGBA()
	pal := image.NewPaletted(image.Rect(0, 0, 4, 3), color.Palette{color.RGBA{10, 20, 30, 255}, color.RGBA{250, 0, 5, 255}})
	pal.SetColorIndex(1, 1, 1)
	g16 := image.NewGray16(image.Rect(0, 0, 3, 2))
	g16.SetGray16(2, 1, color.Gray16{Y: 0xabcd})
	for _, dec := range recimages.Decoders() {
		img, err := dec.Decode(encodePNG(t, nrgba), decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if img.Channels != 4 || img.At(0, 0, 3) != 128 || img.At(0, 0, 0) != 200 {
			t.Errorf("%s: NRGBA: %d channels, pixel 0 = %v", dec.Name(), img.Channels, img.Pix[:4])
		}
		img, err = dec.Decode(encodePNG(t, nrgba), decode.Options{Channels: 3})
		if err != nil || img.Channels != 3 || img.Pix[0] != 200 || img.Pix[1] != 40 || img.Pix[2] != 90 {
			t.Errorf("%s: NRGBA as RGB: %v %v", dec.Name(), err, img.Pix[:3])
		}
		img, err = dec.Decode(encodePNG(t, pal), decode.Options{})
		if err != nil || img.Channels != 3 || img.At(1, 1, 0) != 250 || img.At(0, 0, 2) != 30 {
			t.Errorf("%s: paletted: %v %v", dec.Name(), err, img.Pix)
		}
		img, err = dec.Decode(encodePNG(t, g16), decode.Options{})
		if err != nil || img.Channels != 1 || img.At(1, 2, 0) != 0xab {
			t.Errorf("%s: gray16: %v %v", dec.Name(), err, img.Pix)
		}
	}
}

// A gray JPEG keeps one channel by default. MinShorter never takes the
// shorter side below its value; libjpeg-turbo halves a 256-pixel side for
// MinShorter 128.
func TestDecodePhotos(t *testing.T) {
	imgs := recimages.ImageBytes(t, recimages.Photos(t))
	// A few colour photos and a few gray ones, found from their headers.
	var pick []int
	var nGray, nColor int
	for i, data := range imgs {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("photo %d: %v", i, err)
		}
		if gray := cfg.ColorModel == color.GrayModel; gray && nGray < 3 {
			nGray++
			pick = append(pick, i)
		} else if !gray && nColor < 8 {
			nColor++
			pick = append(pick, i)
		}
	}
	if nGray == 0 {
		t.Fatal("no gray photo in the set")
	}
	for _, dec := range recimages.Decoders() {
		for _, i := range pick {
			data := imgs[i]
			img, err := dec.Decode(data, decode.Options{})
			if err != nil {
				t.Fatalf("%s: photo %d: %v", dec.Name(), i, err)
			}
			cfg, _ := jpeg.DecodeConfig(bytes.NewReader(data))
			if want := map[bool]int{true: 1, false: 3}[cfg.ColorModel == color.GrayModel]; img.Channels != want {
				t.Errorf("%s: photo %d: %d channels, want %d", dec.Name(), i, img.Channels, want)
			}
			if min(img.Width, img.Height) != 256 {
				t.Fatalf("%s: photo %d: %dx%d, shorter side should be 256", dec.Name(), i, img.Width, img.Height)
			}
			small, err := dec.Decode(data, decode.Options{MinShorter: 128, Channels: 3})
			if err != nil {
				t.Fatal(err)
			}
			short := min(small.Width, small.Height)
			want := 256
			if dec.Name() == "turbojpeg" {
				want = 128
			}
			if short != want || small.Channels != 3 {
				t.Fatalf("%s: photo %d with MinShorter 128: shorter side %d, want %d", dec.Name(), i, short, want)
			}
		}
	}
}

func testNRGBA() *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, 32, 24))
	for y := range 24 {
		for x := range 32 {
			c := color.NRGBA{200, 40, 90, 128}
			if x >= 16 {
				c = color.NRGBA{uint8(8 * x), uint8(10 * y), 30, 255}
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

func encodePNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sameImage(a, b sample.Image) bool {
	return a.Height == b.Height && a.Width == b.Width && a.Channels == b.Channels && bytes.Equal(a.Pix, b.Pix)
}
