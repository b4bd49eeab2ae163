package augment_test

import (
	"bytes"

	"github.com/tensorfeed/tensorfeed/sample"
)

func sameImage(a, b sample.Image) bool {
	return a.Height == b.Height && a.Width == b.Width && a.Channels == b.Channels && bytes.Equal(a.Pix, b.Pix)
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
