package stage_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// TestShardUnion: for every length and number of parts, the parts are
// disjoint, their union is exactly the input, each keeps the input order,
// and their sizes differ by at most one, the larger ones first.
func TestShardUnion(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 9, 10, 11, 100} {
		for _, parts := range []int{1, 2, 3, 4, 16} {
			t.Run(fmt.Sprintf("n%d_parts%d", n, parts), func(t *testing.T) {
				var all []int
				sizes := make([]int, parts)
				for p := range parts {
					got := values(t, stage.Shard(source.Slice(lo.Range(n)), parts, p))
					if !slices.IsSorted(got) {
						t.Errorf("part %d out of order: %v", p, got)
					}
					for _, v := range got {
						if v%parts != p {
							t.Errorf("part %d holds sample %d", p, v)
						}
					}
					sizes[p] = len(got)
					all = append(all, got...)
				}
				if !isPermutation(all, n) {
					t.Errorf("union of parts is not the input: %v", all)
				}
				for p := range parts {
					want := n / parts
					if p < n%parts {
						want++
					}
					if sizes[p] != want {
						t.Errorf("part %d has %d samples, want %d (sizes %v)", p, sizes[p], want, sizes)
					}
				}
			})
		}
	}
}

// TestShardAfterShuffle: parts of a shuffled reader stay disjoint when every
// part uses the same seed and epoch.
func TestShardAfterShuffle(t *testing.T) {
	const n, parts = 50, 3
	var all []int
	for p := range parts {
		r := stage.Shard(stage.Shuffle(source.Slice(lo.Range(n)), 16, 5), parts, p)
		all = append(all, passAt(t, r, 4)...)
	}
	if !isPermutation(all, n) {
		t.Errorf("union of shuffled parts is not the input: %v", all)
	}
}

func TestShardBadArgumentsPanic(t *testing.T) {
	r := source.Slice([]int{1})
	for _, tc := range []struct{ parts, index int }{{0, 0}, {-1, 0}, {2, 2}, {2, -1}, {1, 1}} {
		t.Run(fmt.Sprintf("%d_%d", tc.parts, tc.index), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			stage.Shard(r, tc.parts, tc.index)
		})
	}
}
