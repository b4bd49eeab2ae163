package channels_test

import (
	"bytes"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/channels"
	"github.com/tensorfeed/tensorfeed/sample"
)

// Convert's conversions on one 2x1 image of each channel count.
func TestConvert(t *testing.T) {
	gray := sample.Image{Height: 1, Width: 2, Channels: 1, Pix: []uint8{10, 200}}
	rgb := sample.Image{Height: 1, Width: 2, Channels: 3, Pix: []uint8{255, 0, 0, 0, 0, 255}}
	rgba := sample.Image{Height: 1, Width: 2, Channels: 4, Pix: []uint8{255, 0, 0, 7, 0, 0, 255, 9}}
	for _, c := range []struct {
		in   sample.Image
		ch   int
		want []uint8
	}{
		{gray, 3, []uint8{10, 10, 10, 200, 200, 200}},
		{gray, 4, []uint8{10, 10, 10, 255, 200, 200, 200, 255}},
		{rgb, 1, []uint8{76, 29}}, // OpenCV's weights: 0.299 * 255, 0.114 * 255
		{rgb, 4, []uint8{255, 0, 0, 255, 0, 0, 255, 255}},
		{rgba, 3, []uint8{255, 0, 0, 0, 0, 255}},
		{rgba, 1, []uint8{76, 29}},
		{rgb, 3, rgb.Pix},
	} {
		got := channels.Convert(c.in, c.ch)
		if got.Channels != c.ch || got.Width != 2 || got.Height != 1 || !bytes.Equal(got.Pix, c.want) {
			t.Errorf("%d channels to %d: %v, want %v", c.in.Channels, c.ch, got.Pix, c.want)
		}
	}
}
