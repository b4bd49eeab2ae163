package main

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"github.com/tensorfeed/tensorfeed/sample"
)

// TestEncodeImageAlpha checks what packing an image with an alpha channel
// stores: JPEG drops the alpha and keeps the colours as they are (a
// transparent pixel does not turn black), PNG keeps the alpha.
func TestEncodeImageAlpha(t *testing.T) {
	img := sample.NewImage(8, 8, 4)
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:], []byte{200, 100, 50, 0})
	}
	for _, c := range []struct {
		enc  string
		want color.NRGBA
	}{{".jpg", color.NRGBA{200, 100, 50, 255}}, {".png", color.NRGBA{200, 100, 50, 0}}} {
		b, err := encodeImage(img, c.enc, 95)
		if err != nil {
			t.Fatal(c.enc, err)
		}
		m, _, err := image.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(c.enc, err)
		}
		got := color.NRGBAModel.Convert(m.At(3, 3)).(color.NRGBA)
		near := func(a, b uint8) bool { return max(a, b)-min(a, b) <= 8 }
		if !near(got.R, c.want.R) || !near(got.G, c.want.G) || !near(got.B, c.want.B) || got.A != c.want.A {
			t.Errorf("%s: pixel %v, want about %v", c.enc, got, c.want)
		}
	}
}
