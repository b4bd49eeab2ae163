package sink

import (
	"math/rand/v2"
	"testing"
)

// scale, eight values at a time with runs of zeros written without a
// look-up, writes what the loop over single values writes, for every
// length and where zeros and other values alternate in any pattern.
func TestScaleMatchesByteLoop(t *testing.T) {
	var tab [256]float32
	for v := range tab {
		tab[v] = -1 + 2*float32(v)/255
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 41 {
		for trial := range 20 {
			src := make([]uint8, n)
			for i := range src {
				if rng.IntN(3) > 0 { // mostly zeros, as a digit's background
					src[i] = uint8(rng.IntN(256))
				}
			}
			if trial == 0 {
				clear(src)
			}
			got := make([]float32, n+1)
			got[n] = 42 // the element after the row stays as it was
			scale(&tab, got[:n], src)
			for i, v := range src {
				if got[i] != tab[v] {
					t.Fatalf("n %d: element %d of %v is %v, want %v", n, i, src, got[i], tab[v])
				}
			}
			if got[n] != 42 {
				t.Fatalf("n %d: wrote past the row", n)
			}
		}
	}
}
