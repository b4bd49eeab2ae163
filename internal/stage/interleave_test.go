package stage_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// shards returns readers of 0..4, 10..11, 20..22 and 30.
func shards() []source.Reader[int] {
	return []source.Reader[int]{ints(0, 5), ints(10, 2), ints(20, 3), ints(30, 1)}
}

// TestInterleaveOrder checks the order of blocks against tf.data's
// interleave, worked out by hand: a reader that ends frees its slot and
// the turn moves on; the next turn of an empty slot opens the next reader.
func TestInterleaveOrder(t *testing.T) {
	for _, tc := range []struct {
		cycle, block int
		want         []int
	}{
		{2, 2, []int{0, 1, 10, 11, 2, 3, 4, 20, 21, 30, 22}},
		{1, 3, []int{0, 1, 2, 3, 4, 10, 11, 20, 21, 22, 30}},
		{4, 1, []int{0, 10, 20, 30, 1, 11, 21, 2, 22, 3, 4}},
		{9, 2, []int{0, 1, 10, 11, 20, 21, 30, 2, 3, 22, 4}},
	} {
		got, err := source.Collect(context.Background(), stage.Interleave(shards(), tc.cycle, tc.block))
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("cycle %d block %d: %v (error %v), want %v", tc.cycle, tc.block, got, err, tc.want)
		}
	}
}

// TestInterleaveContract runs the contract kit: errors once and last,
// break, cancel, no goroutine left, determinism, and resume to the sample
// (also after a JSON round trip) for several positions.
func TestInterleaveContract(t *testing.T) {
	if err := sourcetest.TestStage(func(up source.Reader[int]) source.Reader[int] {
		return stage.Interleave([]source.Reader[int]{up, ints(1000, 7), ints(2000, 40), ints(3000, 3)}, 2, 3)
	}, func(i int) int { return i }); err != nil {
		t.Fatal(err)
	}
	if err := sourcetest.TestReader(stage.Interleave(shards(), 2, 2)); err != nil {
		t.Fatal(err)
	}
}

// TestInterleaveResumeEveryPosition: a state taken at every position, in
// the middle of a pass or after it, and from a resumed reader after a few
// more samples, resumes exactly the rest of the straight pass; readers
// that prefetch (Buffered) give the same order.
func TestInterleaveResumeEveryPosition(t *testing.T) {
	in := func(prefetch int) []source.Reader[int] {
		var rs []source.Reader[int]
		for i, n := range []int{9, 1, 0, 14, 5, 7, 3} {
			r := source.ReadIndexed(source.IndexSlice(seq(100*i, n)), source.ShuffleIndex(uint64(i)))
			rs = append(rs, stage.Buffered[int](r, prefetch))
		}
		return rs
	}
	ctx := source.WithEpoch(context.Background(), 1)
	full, err := source.Collect(ctx, stage.Interleave(in(0), 3, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 39 {
		t.Fatalf("%d samples, want 39", len(full))
	}
	if pre, err := source.Collect(ctx, stage.Interleave(in(4), 3, 2)); err != nil || !slices.Equal(pre, full) {
		t.Fatalf("with prefetch: %v (%v), want %v", pre, err, full)
	}
	for k := range len(full) + 1 {
		l := stage.Interleave(in(2), 3, 2).(source.Resumable[int])
		if got := sourcetest.BreakAfter(t, readEpoch(l, 1), k); !slices.Equal(got, full[:k]) {
			t.Fatalf("break after %d: %v", k, got)
		}
		st, err := l.StateAt(1, int64(k))
		if err != nil {
			t.Fatal(err)
		}
		r, err := l.Resume(st)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := source.Collect(ctx, r)
		if err != nil || !slices.Equal(rest, full[k:]) {
			t.Fatalf("resume after %d: %v (error %v), want %v", k, rest, err, full[k:])
		}
		// The resumed reader's state after 2 more samples: from k+2.
		if k+2 > len(full) {
			continue
		}
		st2, err := r.(source.Resumable[int]).StateAt(1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if st2.Pos[0] != int64(k+2) {
			t.Fatalf("resumed at %d, state after 2 more counts %d", k, st2.Pos[0])
		}
		r2, err := l.Resume(st2)
		if err != nil {
			t.Fatal(err)
		}
		if rest, err := source.Collect(ctx, r2); err != nil || !slices.Equal(rest, full[k+2:]) {
			t.Fatalf("resume after %d then 2: %v (error %v), want %v", k, rest, err, full[k+2:])
		}
	}
}

func seq(from, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = from + i
	}
	return s
}

// TestInterleaveRefusesBadStates: states of another interleave and states
// whose counters do not fit are refused.
func TestInterleaveRefusesBadStates(t *testing.T) {
	l := stage.Interleave(shards(), 2, 2).(source.Resumable[int])
	st, err := l.StateAt(0, 5)
	if err != nil {
		t.Fatal(err)
	}
	other := stage.Interleave(shards(), 2, 3).(source.Resumable[int])
	if _, err := other.Resume(st); !errors.Is(err, source.ErrState) {
		t.Fatalf("state of another interleave: %v", err)
	}
	for field, v := range map[int]int64{1: 2, 2: 2, 3: 5, 4: 4} {
		bad := st
		bad.Pos = slices.Clone(st.Pos)
		bad.Pos[field] = v
		if _, err := l.Resume(bad); !errors.Is(err, source.ErrState) {
			t.Errorf("pos[%d] = %d: %v, want ErrState", field, v, err)
		}
	}
}
