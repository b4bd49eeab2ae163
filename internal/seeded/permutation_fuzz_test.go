package seeded_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/seeded"
)

// FuzzPermutation checks that At stays in range and Index inverts it for
// any length, seed, epoch and position.
func FuzzPermutation(f *testing.F) {
	f.Add(uint32(7), uint64(1), 0, uint32(3))
	f.Add(uint32(1<<20+3), uint64(42), 5, uint32(1<<20))
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, epoch int, i uint32) {
		if n == 0 {
			return
		}
		p := seeded.NewPermutation(int(n), seed, epoch)
		pos := int(i % n)
		v := p.At(pos)
		if v < 0 || v >= int(n) {
			t.Fatalf("At(%d) = %d outside [0, %d)", pos, v, n)
		}
		if back := p.Index(v); back != pos {
			t.Fatalf("Index(At(%d)) = %d", pos, back)
		}
	})
}
