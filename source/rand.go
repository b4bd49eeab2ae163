package source

import "math/rand/v2"

// splitmix64 is a bijective 64-bit mixer; it spreads nearby seeds, epochs
// and indices over the whole state space of the generator.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// NewRand returns a generator determined by (seed, epoch, index) alone.
// Stages use index -1 for their per-pass generator; per-sample randomness
// such as augmentation uses the sample's index in the pass, so the result
// does not depend on which worker handles the sample.
func NewRand(seed uint64, epoch, index int) *rand.Rand {
	p := new(rand.PCG)
	SeedPCG(p, seed, epoch, index)
	return rand.New(p)
}

// SeedPCG seeds p as NewRand(seed, epoch, index) seeds its generator, so a
// worker that draws for many samples can keep one generator and reseed it
// per sample instead of allocating one.
func SeedPCG(p *rand.PCG, seed uint64, epoch, index int) {
	a := splitmix64(seed ^ splitmix64(uint64(epoch)))
	p.Seed(a, splitmix64(a^splitmix64(uint64(index)+0x5851f42d4c957f2d)))
}
