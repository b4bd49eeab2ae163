package mxnet

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

// A processor's reseeded generator draws what source.NewRand's draws, for
// any seed, epoch and record index, however often it is reused.
func TestDrawMatchesNewRand(t *testing.T) {
	for _, seed := range []uint64{0, 1, 5, 1 << 63, 0xdeadbeefcafe} {
		p := &processor{cfg: &recConfig{seed: seed, shape: [3]int{3, 8, 8}}}
		for _, epoch := range []int{0, 1, 7, -1} {
			for _, index := range []int{0, 1, 2, 1535, 1 << 40, -1} {
				d := p.getDraw(epoch, index)
				want := source.NewRand(seed, epoch, index)
				for k := range 20 {
					if got, w := d.r.Uint64(), want.Uint64(); got != w {
						t.Fatalf("seed %d, epoch %d, index %d, draw %d: %x, want %x", seed, epoch, index, k, got, w)
					}
				}
				p.draws.Put(d)
			}
		}
	}
}
