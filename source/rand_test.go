package source_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

func firstDraws(seed uint64, epoch, index int) [4]uint64 {
	r := source.NewRand(seed, epoch, index)
	return [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
}

func TestNewRandIsDeterministic(t *testing.T) {
	for _, c := range []struct {
		seed         uint64
		epoch, index int
	}{{0, 0, -1}, {42, 3, 17}, {1 << 63, 1000, 1 << 20}} {
		a, b := firstDraws(c.seed, c.epoch, c.index), firstDraws(c.seed, c.epoch, c.index)
		if a != b {
			t.Fatalf("NewRand%v is not repeatable", c)
		}
	}
}

func TestNewRandSeparatesNearbyInputs(t *testing.T) {
	seen := map[[4]uint64]string{}
	add := func(name string, d [4]uint64) {
		if prev, ok := seen[d]; ok {
			t.Fatalf("%s and %s draw the same numbers", prev, name)
		}
		seen[d] = name
	}
	for seed := range uint64(4) {
		for epoch := range 4 {
			for index := -1; index < 4; index++ {
				add(string(rune('a'+seed))+string(rune('0'+epoch))+string(rune('0'+index+1)),
					firstDraws(seed, epoch, index))
			}
		}
	}
	// Swapping epoch and index must not give the same generator.
	if firstDraws(1, 2, 3) == firstDraws(1, 3, 2) {
		t.Fatal("NewRand(1, 2, 3) == NewRand(1, 3, 2)")
	}
}

func TestNewRandIsUniformEnough(t *testing.T) {
	// Per-sample generators of consecutive indices must not be correlated:
	// the first draw of each should be spread evenly over [0, 1).
	const n, bins = 20000, 10
	var count [bins]int
	for i := range n {
		count[int(source.NewRand(5, 0, i).Float64()*bins)]++
	}
	for b, c := range count {
		if c < n/bins*8/10 || c > n/bins*12/10 {
			t.Fatalf("bin %d holds %d of %d first draws: %v", b, c, n, count)
		}
	}
}
