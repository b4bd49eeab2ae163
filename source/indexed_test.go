package source_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// A reader that skips bad samples resumes after them: its state counts the
// skipped positions in.
func TestReadIndexedResumesPastSkips(t *testing.T) {
	bad := map[int]error{0: errBad, 5: errBad, 6: errBad, 50: errBad, 99: errBad}
	for _, shuffle := range []bool{false, true} {
		opts := []source.IndexedOption{source.SkipIndexed(source.SkipBad(0.1))}
		if shuffle {
			opts = append(opts, source.ShuffleIndex(4))
		}
		if err := sourcetest.TestReader(source.ReadIndexed(flaky{bad: bad}, opts...)); err != nil {
			t.Errorf("shuffle %v: %v", shuffle, err)
		}
	}
}

// ShardIndex parts are disjoint, cover the epoch, have equal lengths
// (padded or dropped) and keep the reader contract, resume included.
func TestShardIndex(t *testing.T) {
	ctx := source.WithEpoch(context.Background(), 2)
	d := source.IndexSlice(seq(0, 103))
	for _, world := range []int{1, 2, 4, 7, 103, 150} {
		for _, even := range []source.Even{source.PadShards, source.DropShards} {
			t.Run(fmt.Sprintf("world=%d/even=%d", world, even), func(t *testing.T) {
				seen := map[int]int{}
				length := -1
				for rank := range world {
					r := source.ReadIndexed(d, source.ShuffleIndex(9), source.ShardIndex(world, rank, even))
					if err := sourcetest.TestReader(r); err != nil {
						t.Fatal(err)
					}
					got, err := source.Collect(ctx, r)
					if err != nil {
						t.Fatal(err)
					}
					if length >= 0 && len(got) != length {
						t.Fatalf("rank %d has %d samples, rank 0 %d", rank, len(got), length)
					}
					length = len(got)
					for _, v := range got {
						seen[v]++
					}
				}
				rest := 103 % world
				switch even {
				case source.PadShards:
					if len(seen) != 103 {
						t.Errorf("%d distinct samples, want all 103", len(seen))
					}
				case source.DropShards:
					if len(seen) != 103-rest {
						t.Errorf("%d distinct samples, want %d", len(seen), 103-rest)
					}
					for v, n := range seen {
						if n > 1 {
							t.Errorf("sample %d read %d times", v, n)
						}
					}
				}
			})
		}
	}
}

func TestShardIndexStateRefusesSkewedSkips(t *testing.T) {
	ctx := source.WithEpoch(context.Background(), 0)
	r := source.ReadIndexed(flaky{bad: map[int]error{4: errBad}}, source.SkipIndexed(source.SkipBad(0.5)), source.ShardIndex(2, 0, source.PadShards))
	if _, err := source.Collect(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := r.StateAt(0, 10); err == nil {
		t.Error("a shard that skipped a sample gave a state")
	}
	if _, err := r.StateAt(0, 1); err != nil {
		t.Errorf("before the skip: %v", err)
	}
}

func TestShardIndexPanics(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {2, 2}, {2, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ShardIndex(%d, %d) did not panic", c[0], c[1])
				}
			}()
			source.ShardIndex(c[0], c[1], source.PadShards)
		}()
	}
}

// seq returns from, from+1, ..., to-1.
func seq(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// A state after skipped samples carries their count, and the resumed pass
// judges the policy over the whole epoch: what failed the whole pass fails
// the tail too.
func TestReadIndexedResumeJudgesWholeEpoch(t *testing.T) {
	ctx := source.WithEpoch(context.Background(), 0)
	d := flaky{bad: map[int]error{1: errBad, 2: errBad, 3: errBad, 4: errBad, 97: errBad, 98: errBad}} // 6 of 100
	r := source.ReadIndexed(d, source.SkipIndexed(source.SkipBad(0.05)))
	if _, err := source.Collect(ctx, r); !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("whole pass: %v, want ErrTooManyBad", err)
	}
	got := 0
	for _, err := range r.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if got++; got == 6 {
			break
		}
	}
	st, err := r.StateAt(0, 6)
	if err != nil || len(st.Pos) != 2 || st.Pos[0] != 10 || st.Pos[1] != 4 {
		t.Fatalf("state after 6: %+v, %v, want position 10, 4 skipped", st, err)
	}
	r2, err := r.Resume(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := source.Collect(ctx, r2); !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("resumed pass: %v, want ErrTooManyBad (6 of 100 over the epoch)", err)
	}
	if st2, _ := r2.(source.Resumable[int]).StateAt(0, 87); len(st2.Pos) != 2 || st2.Pos[0] != 98 || st2.Pos[1] != 5 {
		t.Fatalf("resumed state after 87: %+v, want position 98, 5 skipped", st2)
	}
	tail, err := source.Collect(ctx, r.From(10)) // no count: the tail alone, 2 of 100
	if err != nil || len(tail) != 88 {
		t.Fatalf("From(10): %d samples, %v", len(tail), err)
	}
	if _, err := r.Resume(source.State{Kind: st.Kind, Pos: []int64{3, 4}}); !errors.Is(err, source.ErrState) {
		t.Fatalf("4 skipped before position 3: %v, want ErrState", err)
	}
}
