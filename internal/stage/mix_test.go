package stage_test

import (
	"context"
	"errors"
	"iter"
	"math"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// ints returns the reader of from, from+1, ..., from+n-1.
func ints(from, n int) source.Reader[int] {
	s := make([]int, n)
	for i := range s {
		s[i] = from + i
	}
	return source.Slice(s)
}

// TestMixProportionsAndDeterminism draws 20000 samples at 0.7/0.3 from
// two short inputs that are re-iterated: the proportions are those of the
// weights (within 5 standard deviations), each input's samples come in its
// order, round and round, the same epoch repeats and another differs.
func TestMixProportionsAndDeterminism(t *testing.T) {
	m := stage.Mix([]source.Reader[int]{ints(0, 7), ints(1000, 13)}, []float64{0.7, 0.3}, 5, 20000)
	ctx := source.WithEpoch(context.Background(), 3)
	got, err := source.Collect(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20000 {
		t.Fatalf("%d samples, want 20000", len(got))
	}
	var n [2]int
	for _, v := range got {
		k := v / 1000
		if want := [2]int{n[0] % 7, 1000 + n[1]%13}[k]; v != want {
			t.Fatalf("sample %d of input %d is %d, want %d", n[k], k, v, want)
		}
		n[k]++
	}
	if sd := math.Sqrt(20000 * 0.21); math.Abs(float64(n[1])-6000) > 5*sd {
		t.Fatalf("input 1 gave %d of 20000, want about 6000", n[1])
	}
	again, _ := source.Collect(ctx, m)
	other, _ := source.Collect(source.WithEpoch(context.Background(), 4), m)
	if !slices.Equal(got, again) || slices.Equal(got, other) {
		t.Fatal("epoch 3 does not repeat, or epoch 4 is the same")
	}
}

// TestMixStopsAtFirstEnded: with length 0 the pass ends when the input
// chosen next has ended, having taken every sample of that input.
func TestMixStopsAtFirstEnded(t *testing.T) {
	m := stage.Mix([]source.Reader[int]{ints(0, 1000), ints(1000, 50)}, []float64{1, 1}, 1, 0)
	got, err := source.Collect(source.WithEpoch(context.Background(), 0), m)
	if err != nil {
		t.Fatal(err)
	}
	small := 0
	for _, v := range got {
		if v >= 1000 {
			small++
		}
	}
	if small != 50 || len(got) > 200 {
		t.Fatalf("%d samples with %d of the 50 of the short input, want all 50 and about 100 in all", len(got), small)
	}
	// The state past the end is the end: a resume yields nothing.
	st, err := m.(source.Resumable[int]).StateAt(0, int64(len(got)+10))
	if err != nil {
		t.Fatal(err)
	}
	if st.Pos[0] != int64(len(got)+10) || st.Pos[1] != int64(len(got)) {
		t.Fatalf("state after 10 past the end counts %d and chooses at %d, want %d and %d", st.Pos[0], st.Pos[1], len(got)+10, len(got))
	}
	r, err := m.(source.Resumable[int]).Resume(st)
	if err != nil {
		t.Fatal(err)
	}
	if rest, err := source.Collect(source.WithEpoch(context.Background(), 0), r); len(rest) != 0 || err != nil {
		t.Fatalf("resume at the end: %d samples, %v", len(rest), err)
	}
}

// TestMixContract runs the contract kit over both modes: errors once and
// last, break, cancel, no goroutine left, and resume to the sample for
// several positions, across re-iterations of the inputs.
func TestMixContract(t *testing.T) {
	for _, length := range []int{0, 500} {
		stageOf := func(up source.Reader[int]) source.Reader[int] {
			return stage.Mix([]source.Reader[int]{up, ints(1_000_000, 37)}, []float64{3, 1}, 9, length)
		}
		if length == 0 { // the other input must outlast the upstream's 100 samples
			stageOf = func(up source.Reader[int]) source.Reader[int] {
				return stage.Mix([]source.Reader[int]{up, ints(1_000_000, 5000)}, []float64{3, 1}, 9, 0)
			}
		}
		if err := sourcetest.TestStage(stageOf, func(i int) int { return i }); err != nil {
			t.Fatalf("length %d: %v", length, err)
		}
		// Resume inside the inputs' later passes.
		r := stage.Mix([]source.Reader[int]{ints(0, 7), ints(100, 3), ints(200, 11)}, []float64{1, 2, 3}, 2, 300)
		if err := sourcetest.TestReader(r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMixResumeEveryPosition resumes a re-iterating mix of shuffled
// indexed inputs from its state after every k: the rest equals the
// straight run's rest.
func TestMixResumeEveryPosition(t *testing.T) {
	in := []source.Reader[int]{
		source.ReadIndexed(source.IndexSlice([]int{0, 1, 2, 3, 4}), source.ShuffleIndex(1)),
		source.ReadIndexed(source.IndexSlice([]int{10, 11, 12}), source.ShuffleIndex(2)),
	}
	m := stage.Mix(in, []float64{0.5, 0.5}, 7, 60).(source.Resumable[int])
	ctx := source.WithEpoch(context.Background(), 2)
	full, err := source.Collect(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	for k := range len(full) + 1 {
		// A state taken mid-pass, by a mix that has seen only what its
		// pass read so far, and one taken after the whole pass.
		fresh := stage.Mix(in, []float64{0.5, 0.5}, 7, 60).(source.Resumable[int])
		if got := sourcetest.BreakAfter(t, readEpoch(fresh, 2), k); !slices.Equal(got, full[:k]) {
			t.Fatalf("break after %d: %v", k, got)
		}
		mid, err := fresh.StateAt(2, int64(k))
		if err != nil {
			t.Fatal(err)
		}
		if r, err := fresh.Resume(mid); err != nil {
			t.Fatal(err)
		} else if rest, err := source.Collect(ctx, r); err != nil || !slices.Equal(rest, full[k:]) {
			t.Fatalf("resume after %d, state taken mid-pass: %v (error %v), want %v", k, rest, err, full[k:])
		}
		st, err := m.StateAt(2, int64(k))
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.Resume(st)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		rest, err := source.Collect(ctx, r)
		if err != nil || !slices.Equal(rest, full[k:]) {
			t.Fatalf("resume after %d: %v (error %v), want %v", k, rest, err, full[k:])
		}
	}
}

// TestMixEmptyInput: re-iterating an empty input is an error, once.
func TestMixEmptyInput(t *testing.T) {
	m := stage.Mix([]source.Reader[int]{ints(0, 3), ints(0, 0)}, []float64{1, 1}, 1, 100)
	_, err := source.Collect(context.Background(), m)
	if !errors.Is(err, stage.ErrEmptyInput) {
		t.Fatalf("error %v, want ErrEmptyInput", err)
	}
}

// TestMixRefusesOtherStates: a state of another mix is refused.
func TestMixRefusesOtherStates(t *testing.T) {
	a := stage.Mix([]source.Reader[int]{ints(0, 3), ints(0, 4)}, []float64{1, 1}, 1, 100).(source.Resumable[int])
	b := stage.Mix([]source.Reader[int]{ints(0, 3), ints(0, 4)}, []float64{1, 2}, 1, 100).(source.Resumable[int])
	st, err := a.StateAt(0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Resume(st); !errors.Is(err, source.ErrState) {
		t.Fatalf("resume of another mix's state: %v", err)
	}
	st.Pos[0], st.Pos[1] = 101, 101
	if _, err := a.Resume(st); !errors.Is(err, source.ErrState) {
		t.Fatalf("resume past the end: %v", err)
	}
}

// readEpoch pins r's passes to epoch e.
func readEpoch[T any](r source.Reader[T], e int) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return r.All(source.WithEpoch(ctx, e))
	})
}

// BenchmarkMix draws passes of 100000 samples from 4 slices at random.
func BenchmarkMix(b *testing.B) {
	in := []source.Reader[int]{ints(0, 1000), ints(0, 2000), ints(0, 3000), ints(0, 4000)}
	sourcetest.Passes(b, stage.Mix(in, []float64{1, 2, 3, 4}, 1, 100_000), 100_000)
}

// BenchmarkInterleave reads 16 slices of 1000 samples, 4 at a time in
// blocks of 8.
func BenchmarkInterleave(b *testing.B) {
	var in []source.Reader[int]
	for i := range 16 {
		in = append(in, ints(1000*i, 1000))
	}
	sourcetest.Passes(b, stage.Interleave(in, 4, 8), 16_000)
}
