// Package seeded derives the deterministic randomness of tensorfeed from
// (seed, epoch, index): the generators of source.NewRand and the
// permutation of source.ShuffleIndex. It is internal so that the library
// has one public way to each (NewRand, ShuffleIndex) while its stages,
// benchmarks and checks reproduce the same streams.
package seeded

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Mix64 is splitmix64: a bijective 64-bit mixer whose output passes
// BigCrush; it spreads nearby seeds, epochs and indices over the whole
// state space of a generator.
func Mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// SeedPCG seeds p as source.NewRand(seed, epoch, index) seeds its
// generator, so that a worker drawing for many samples can keep one
// generator and reseed it per sample instead of allocating one.
func SeedPCG(p *rand.PCG, seed uint64, epoch, index int) {
	a := Mix64(seed ^ Mix64(uint64(epoch)))
	p.Seed(a, Mix64(a^Mix64(uint64(index)+0x5851f42d4c957f2d)))
}

// permRounds is the number of Feistel rounds of a [Permutation]. Luby and
// Rackoff showed that four rounds of independent pseudorandom functions
// give a pseudorandom permutation; six leave a margin for the halves of
// unequal width that a domain of an odd number of bits needs.
const permRounds = 6

// Permutation is a seeded bijection of [0, n), computed index by index:
// At(i) is the i-th element of the shuffled order without any table, so
// it costs O(1) memory whatever n is, and any position of an epoch can be
// reached directly. The order is determined by (n, seed, epoch) alone.
//
// It is a keyed Feistel network over the smallest power of two 2^k >= n
// (k >= 2), with cycle walking: the network is applied again until the
// value falls into [0, n), so At needs fewer than 2 rounds of the network
// on average and allocates nothing. Its round function mixes the half
// with a 64-bit key derived from (seed, epoch, round) through splitmix64,
// whose output passes BigCrush; six rounds make the order statistically
// indistinguishable from a uniform shuffle for the purposes of data
// order (every sample about equally likely at every position, and
// neighbouring samples scattered). It is not a cryptographic permutation:
// do not use it to hide anything.
//
// The zero Permutation is the empty one (n = 0). A Permutation is a value:
// copy it freely; it is safe for concurrent use.
type Permutation struct {
	n    int
	lo   uint // bits of the low half; the high half has k - lo
	hi   uint // bits of the high half
	keys [permRounds]uint64
}

// NewPermutation returns the permutation of [0, n) for (seed, epoch). It
// panics when n is negative.
func NewPermutation(n int, seed uint64, epoch int) Permutation {
	if n < 0 {
		panic(fmt.Sprintf("seeded: NewPermutation(%d): negative length", n))
	}
	p := Permutation{n: n}
	if n <= 1 {
		return p
	}
	k := uint(max(bits.Len(uint(n-1)), 2))
	p.hi = k / 2
	p.lo = k - p.hi
	base := Mix64(seed ^ Mix64(uint64(epoch)^0x6a09e667f3bcc908))
	for r := range p.keys {
		base = Mix64(base + uint64(r))
		p.keys[r] = base
	}
	return p
}

// Len returns n, the size of the permuted range.
func (p *Permutation) Len() int { return p.n }

// At returns the element at position i of the permutation, in [0, n). It
// panics when i is outside [0, n).
func (p *Permutation) At(i int) int { return p.walk("At", i, false) }

// Index returns the position of element v in the permutation: the
// inverse of At (p.At(p.Index(v)) == v). It panics when v is outside
// [0, n).
func (p *Permutation) Index(v int) int { return p.walk("Index", v, true) }

// walk maps x through the Feistel network (decrypt when inverse), again
// and again until the value falls in [0, n): cycle walking, which keeps a
// bijection of the 2^k values a bijection of [0, n).
func (p *Permutation) walk(name string, x int, inverse bool) int {
	if uint(x) >= uint(p.n) {
		panic(fmt.Sprintf("seeded: Permutation.%s(%d) out of range [0, %d)", name, x, p.n))
	}
	if p.n == 1 {
		return 0
	}
	y := uint64(x)
	for {
		if inverse {
			y = p.decrypt(y)
		} else {
			y = p.encrypt(y)
		}
		if y < uint64(p.n) {
			return int(y)
		}
	}
}

// encrypt applies the Feistel network to x, a k-bit value. Each round
// splits x into a high part of p.hi bits and a low part of p.lo bits and
// returns lo<<hi | (high ^ F(lo)) & mask(hi): a bijection of the k-bit
// values whatever the split. The two widths alternate between rounds.
func (p *Permutation) encrypt(x uint64) uint64 {
	a, b := p.hi, p.lo
	for _, key := range p.keys {
		l := x & (1<<b - 1)
		h := x >> b
		x = l<<a | (h^Mix64(l^key))&(1<<a-1)
		a, b = b, a
	}
	return x
}

// decrypt is the inverse of encrypt.
func (p *Permutation) decrypt(x uint64) uint64 {
	a, b := p.hi, p.lo
	if permRounds%2 == 1 {
		a, b = b, a
	}
	for r := permRounds - 1; r >= 0; r-- {
		// Round r took widths (a', b') = the ones before the last swap.
		a, b = b, a
		l := x >> a
		h := (x ^ Mix64(l^p.keys[r])) & (1<<a - 1)
		x = h<<b | l
	}
	return x
}
