package source

import (
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/internal/seeded"
)

// NewRand returns a generator determined by (seed, epoch, index) alone.
// Stages use index -1 for their per-pass generator; per-sample randomness
// such as augmentation uses the sample's index in the pass, so the result
// does not depend on which worker handles the sample.
func NewRand(seed uint64, epoch, index int) *rand.Rand {
	p := new(rand.PCG)
	seeded.SeedPCG(p, seed, epoch, index)
	return rand.New(p)
}
