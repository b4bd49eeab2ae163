package augment

import (
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Mirror returns an Aug that flips every image left to right (MXNet's
// mirror).
func Mirror() Aug {
	return func(img sample.Image, _ *rand.Rand) (sample.Image, error) {
		return mirrorImage(img), nil
	}
}

// RandomMirror returns an Aug that flips an image left to right with
// probability 1/2 (MXNet's rand_mirror).
func RandomMirror() Aug {
	return func(img sample.Image, r *rand.Rand) (sample.Image, error) {
		if r.IntN(2) == 0 {
			return img, nil
		}
		return mirrorImage(img), nil
	}
}

// mirrorImage returns a copy of img flipped left to right.
func mirrorImage(img sample.Image) sample.Image {
	out := sample.NewImage(img.Height, img.Width, img.Channels)
	ch := img.Channels
	rowLen := img.Width * ch
	for y := range img.Height {
		src := img.Pix[y*rowLen : (y+1)*rowLen]
		dst := out.Pix[y*rowLen : (y+1)*rowLen]
		for x := range img.Width {
			copy(dst[(img.Width-1-x)*ch:(img.Width-x)*ch], src[x*ch:(x+1)*ch])
		}
	}
	return out
}
