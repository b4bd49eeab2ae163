package augment

import (
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Aug is one augmentation step: it returns a new image made from img, or
// img itself when it has nothing to do. Random steps draw from r, the
// sample's own generator (imagerec.Augment gives each sample
// source.NewRand(seed, epoch, index)), so the result depends only on the
// seed, the epoch and the sample's index, never on which goroutine ran it.
// Deterministic steps ignore r, which may then be nil.
//
// An Aug must not modify img's pixels: the caller may still hold them.
type Aug func(img sample.Image, r *rand.Rand) (sample.Image, error)

// Compose returns an Aug that applies augs in order and stops at the first
// error.
func Compose(augs ...Aug) Aug {
	augs = append([]Aug(nil), augs...)
	return func(img sample.Image, r *rand.Rand) (sample.Image, error) {
		var err error
		for _, a := range augs {
			if img, err = a(img, r); err != nil {
				return img, err
			}
		}
		return img, nil
	}
}
