package source

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/mixargs"
)

// Mix returns the weighted mixture of parts as one random-access dataset
// of length samples (Grain's MapDataset.mix): part k holds n_k of them,
// the counts apportioned by largest remainder, so that |n_k -
// length*w_k/sum(w)| < 1 for every k, in every epoch. A length of 0 takes
// Grain's: the longest mixture in which no part repeats a sample,
// floor(min_k Len_k*sum(w)/w_k).
//
// The parts' samples are spread evenly through the mixture, by a fixed
// rule and not at random: item i is placed by halving the list of parts
// log2(len(parts)) times, each time sending the item left or right in
// proportion to the counts on each side, so Get(i) finds its part and the
// index within the part in O(log k) integer steps, with no table. Item j
// of part k is Get(j mod Len_k) of that part: a part shorter than its
// share wraps round and repeats samples within the epoch; a part longer
// than its share gives its first n_k samples every epoch (shuffle it by
// index beneath the mixture with a fixed seed, or state a length that
// covers it, to reach the rest).
//
// The mixture is an Indexed like any other, so ReadIndexed over it with
// ShuffleIndex and ShardIndex gives a shuffled, rank-split mixture whose
// state is one position and which resumes to the item, for any number of
// workers downstream; the proportions are exact over the epoch and over
// every rank's share to within the shuffle's randomness.
//
// Mix reads every part's Len once, when it is called. It panics (a
// programmer's error) when there are no parts, when the weights are not
// one positive finite number per part, or when length < 0. A part of
// length 0 with a share of the epoch makes the Get of its items fail with
// an error wrapping [ErrIndex]. The result is an [Identifier] over the
// parts that are.
func Mix[T any](length int, weights []float64, parts ...Indexed[T]) Indexed[T] {
	sum := mixargs.Check("source.Mix", "part", len(parts), weights, length)
	m := &mixIndexed[T]{parts: parts, lens: make([]int, len(parts))}
	for k, p := range parts {
		if p == nil {
			panic(fmt.Sprintf("source.Mix: part %d is nil", k))
		}
		m.lens[k] = p.Len()
	}
	if length == 0 {
		longest := math.Inf(1)
		for k, n := range m.lens {
			longest = min(longest, float64(n)*sum/weights[k])
		}
		length = int(min(longest, float64(math.MaxInt32)))
	}
	m.counts = apportion(length, weights)
	m.prefix = make([]int, len(parts)+1)
	for k, c := range m.counts {
		m.prefix[k+1] = m.prefix[k] + c
	}
	return m
}

// apportion splits total into one count per weight, in proportion to the
// weights, by largest remainder: the counts add up to total and each is
// within 1 of total*w/sum(w) (ties go to the earlier weight). The weights
// are positive and finite.
func apportion(total int, weights []float64) []int {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	counts := make([]int, len(weights))
	frac := make([]float64, len(weights))
	given := 0
	for k, w := range weights {
		q := float64(total) * (w / sum)
		c := min(int(math.Floor(q)), total)
		counts[k], frac[k] = c, q-float64(c)
		given += c
	}
	order := make([]int, len(weights))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(frac[b], frac[a]) })
	for i := 0; given < total; i++ { // the largest remainders get one more
		counts[order[i%len(order)]]++
		given++
	}
	// Rounding of total*w/sum may, rarely, leave the floors one over
	// total: the smallest remainders give it back.
	for i := len(order) - 1; given > total; i = (i + len(order) - 1) % len(order) {
		if k := order[i]; counts[k] > 0 {
			counts[k]--
			given--
		}
	}
	return counts
}

type mixIndexed[T any] struct {
	parts  []Indexed[T]
	lens   []int // each part's Len, read once
	counts []int // each part's samples in the mixture
	prefix []int // prefix[k] = counts[0] + ... + counts[k-1]
}

func (m *mixIndexed[T]) Len() int { return m.prefix[len(m.parts)] }

// Get returns item i: the item's part and its index there come from
// locate, then the part's sample at that index, wrapped round the part.
func (m *mixIndexed[T]) Get(i int) (T, error) {
	if uint(i) >= uint(m.Len()) {
		var zero T
		return zero, IndexError(i, m.Len())
	}
	k, j := m.locate(i)
	if m.lens[k] == 0 {
		var zero T
		return zero, fmt.Errorf("source.Mix: item %d is sample %d of part %d, which is empty: %w", i, j, k, IndexError(j, 0))
	}
	return m.parts[k].Get(j % m.lens[k])
}

// locate returns the part of item i and the item's index among that
// part's items. Parts [a, b) hold T items, of which the parts [a, mid)
// hold L; the first j items of the range send cL(j) = floor((j*L +
// T/2)/T) items left, so item j goes left when cL(j+1) > cL(j), as the
// cL(j)-th item of the left half, and right otherwise, as the (j-cL(j))-th
// of the right half. cL(T) = L, so every half gets exactly its count.
func (m *mixIndexed[T]) locate(i int) (part, index int) {
	a, b, j := 0, len(m.parts), uint64(i)
	for b-a > 1 {
		mid := (a + b) / 2
		t := uint64(m.prefix[b] - m.prefix[a])
		l := uint64(m.prefix[mid] - m.prefix[a])
		c0, c1 := share(j, l, t), share(j+1, l, t)
		if c1 > c0 {
			b, j = mid, c0
		} else {
			a, j = mid, j-c0
		}
	}
	return a, int(j)
}

// share returns floor((j*l + t/2) / t) for j <= t and l <= t, t > 0,
// without overflow.
func share(j, l, t uint64) uint64 {
	hi, lo := bits.Mul64(j, l)
	lo, carry := bits.Add64(lo, t/2, 0)
	q, _ := bits.Div64(hi+carry, lo, t) // j*l + t/2 < t*t, so hi < t
	return q
}

// Identity joins the identities of the parts that are Identifiers, with
// the counts of the mixture, so that a checkpoint of a mixture is refused
// over other parts or other proportions.
func (m *mixIndexed[T]) Identity(ctx context.Context) (string, error) {
	var ids []string
	for k, p := range m.parts {
		id, ok := p.(Identifier)
		if !ok {
			continue
		}
		s, err := id.Identity(ctx)
		if err != nil {
			return "", fmt.Errorf("source.Mix: part %d: %w", k, err)
		}
		if s != "" {
			ids = append(ids, fmt.Sprintf("part %d: %s", k, s))
		}
	}
	// The counts are there even for parts in memory: a checkpoint of a
	// mixture is refused by a mixture of other proportions.
	if len(ids) == 0 {
		return fmt.Sprintf("mix%v", m.counts), nil
	}
	return fmt.Sprintf("mix%v: %s", m.counts, strings.Join(ids, "; ")), nil
}
