package stage_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestZip2(t *testing.T) {
	r := stage.Zip2(source.Slice([]int{1, 2, 3}), source.Slice([]string{"a", "b", "c"}))
	want := []stage.Tuple2[int, string]{{1, "a"}, {2, "b"}, {3, "c"}}
	for pass := range 2 {
		if got := values(t, r); !slices.Equal(got, want) {
			t.Errorf("pass %d: got %v, want %v", pass, got, want)
		}
	}
}

func TestZip3Zip4(t *testing.T) {
	a, b := source.Slice([]int{1, 2}), source.Slice([]string{"x", "y"})
	c, d := source.Slice([]bool{true, false}), source.Slice([]float32{0.5, 1.5})
	got3 := values(t, stage.Zip3(a, b, c))
	want3 := []stage.Tuple3[int, string, bool]{{1, "x", true}, {2, "y", false}}
	if !slices.Equal(got3, want3) {
		t.Errorf("Zip3 = %v, want %v", got3, want3)
	}
	got4 := values(t, stage.Zip4(a, b, c, d))
	want4 := []stage.Tuple4[int, string, bool, float32]{{1, "x", true, 0.5}, {2, "y", false, 1.5}}
	if !slices.Equal(got4, want4) {
		t.Errorf("Zip4 = %v, want %v", got4, want4)
	}
}

func TestZipEmpty(t *testing.T) {
	if got := values(t, stage.Zip2(source.Slice[int](nil), source.Slice[int](nil))); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}

// zipLens zips readers of the given lengths (2 to 4 of them) into a reader
// of the first reader's values.
func zipLens(lens []int, opts ...stage.ZipOption) source.Reader[int] {
	r := func(i int) source.Reader[int] { return source.Slice(lo.Range(lens[i])) }
	switch len(lens) {
	case 2:
		return stage.Map(stage.Zip2(r(0), r(1), opts...), func(t stage.Tuple2[int, int]) int { return t.A })
	case 3:
		return stage.Map(stage.Zip3(r(0), r(1), r(2), opts...), func(t stage.Tuple3[int, int, int]) int { return t.A })
	default:
		return stage.Map(stage.Zip4(r(0), r(1), r(2), r(3), opts...), func(t stage.Tuple4[int, int, int, int]) int { return t.A })
	}
}

func TestZipNotAligned(t *testing.T) {
	tests := []struct {
		name    string
		lens    []int
		samples int    // zipped samples before the error
		msg     string // what the error must say
	}{
		{"second shorter", []int{5, 3}, 3, "reader 1 ended after 3 samples"},
		{"second longer", []int{3, 5}, 3, "reader 0 ended after 3 samples, reader 1 has more"},
		{"second empty", []int{2, 0}, 0, "reader 1 ended after 0 samples"},
		{"first empty", []int{0, 2}, 0, "reader 0 ended after 0 samples, reader 1 has more"},
		{"third shorter", []int{4, 4, 2}, 2, "reader 2 ended after 2 samples"},
		{"third longer", []int{4, 4, 6}, 4, "reader 2 has more"},
		{"fourth shorter", []int{4, 4, 4, 1}, 1, "reader 3 ended after 1 samples"},
		{"fourth longer", []int{4, 4, 4, 5}, 4, "reader 3 has more"},
		{"second of four longer", []int{4, 5, 4, 4}, 4, "reader 1 has more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := drain(t, t.Context(), zipLens(tc.lens), 100)
			if len(items) != tc.samples+1 {
				t.Fatalf("got %d items %v, want %d samples and an error", len(items), items, tc.samples)
			}
			for i, it := range items[:tc.samples] {
				if it.err != nil || it.v != i {
					t.Errorf("item %d = %v", i, it)
				}
			}
			err := items[tc.samples].err
			if !errors.Is(err, stage.ErrNotAligned) {
				t.Fatalf("error = %v, want ErrNotAligned", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}

func TestZipShortest(t *testing.T) {
	tests := []struct {
		lens []int
		want int
	}{
		{[]int{5, 3}, 3},
		{[]int{3, 5}, 3},
		{[]int{0, 5}, 0},
		{[]int{4, 6, 2}, 2},
		{[]int{4, 6, 5, 3}, 3},
		{[]int{4, 4, 4, 4}, 4},
	}
	for _, tc := range tests {
		if got := values(t, zipLens(tc.lens, stage.Shortest())); !slices.Equal(got, lo.Range(tc.want)) {
			t.Errorf("lengths %v: got %v, want %d samples", tc.lens, got, tc.want)
		}
	}
}

// TestZipShortestEndlessNoise pairs a finite reader with endless generators,
// as a GAN's input pipeline does, and checks that they are all stopped.
func TestZipShortestEndlessNoise(t *testing.T) {
	noise := newProbe(-1)
	labels := newProbe(-1)
	r := stage.Zip3(source.Slice([]string{"a", "b", "c"}), noise, labels, stage.Shortest())
	got := values(t, r)
	want := []stage.Tuple3[string, int, int]{{"a", 0, 0}, {"b", 1, 1}, {"c", 2, 2}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if noise.open() != 0 || labels.open() != 0 {
		t.Errorf("endless readers still open: %d, %d", noise.open(), labels.open())
	}
	// Without Shortest, the endless readers are longer: an error.
	_, err := source.Collect(t.Context(), stage.Zip2(source.Slice([]int{1}), source.Uniform(2, 0, 1, 1)))
	if !errors.Is(err, stage.ErrNotAligned) {
		t.Errorf("finite with endless: error %v, want ErrNotAligned", err)
	}
}

// TestZipPulledReaderError: an error from a pulled reader, also one that
// comes when the first reader has ended, is passed on rather than hidden
// behind an alignment error.
func TestZipPulledReaderError(t *testing.T) {
	for _, opts := range [][]stage.ZipOption{nil, {stage.Shortest()}} {
		b := newProbe(10)
		b.failAt = 3 // after the 3 samples of the first reader
		_, err := source.Collect(t.Context(), stage.Zip2(source.Slice([]int{1, 2, 3}), b, opts...))
		if opts == nil && !errors.Is(err, errBoom) {
			t.Errorf("error = %v, want errBoom", err)
		}
		if opts != nil && err != nil {
			t.Errorf("Shortest: error = %v, want none (the first reader ended first)", err)
		}
		if b.open() != 0 {
			t.Errorf("pulled reader still open")
		}
	}
}

// TestZipEpochs: every reader of the zip sees the pass's context, and so its
// epoch.
func TestZipEpochs(t *testing.T) {
	a, b := newProbe(2), newProbe(2)
	passAt(t, stage.Zip2[int, int](a, b), 6)
	if ea, eb := a.seenEpochs(), b.seenEpochs(); !slices.Equal(ea, []int{6}) || !slices.Equal(eb, []int{6}) {
		t.Errorf("epochs seen: %v, %v; want [6], [6]", ea, eb)
	}
}

// TestZipChunkBoundaries: the pulled readers are read in chunks of 1, 2,
// 4, ... samples; alignment checks and errors must be exact at every
// length around the chunk edges.
func TestZipChunkBoundaries(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 6, 7, 8, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129} {
		for _, d := range []int{-1, 0, 1} {
			la, lb := n, n+d
			items := drain(t, t.Context(), zipLens([]int{la, lb}), 1000)
			want := min(la, lb)
			if d == 0 {
				if len(items) != n || items[n-1].err != nil {
					t.Errorf("lengths %d, %d: got %d items", la, lb, len(items))
				}
				continue
			}
			if len(items) != want+1 || !errors.Is(items[want].err, stage.ErrNotAligned) {
				t.Errorf("lengths %d, %d: got %d items, last %v", la, lb, len(items), items[len(items)-1])
			}
		}
		// An error in the pulled reader comes right after the samples before it.
		b := newProbe(n + 10)
		b.failAt = n
		items := drain(t, t.Context(), stage.Zip2(source.Slice(lo.Range(n+10)), source.Reader[int](b)), 1000)
		if len(items) != n+1 || !errors.Is(items[n].err, errBoom) {
			t.Errorf("error at %d: got %d items, last %v", n, len(items), items[len(items)-1])
		}
		for i, it := range items[:n] {
			if it.v.A != i || it.v.B != i {
				t.Fatalf("error at %d: item %d = %v", n, i, it.v)
			}
		}
	}
}

// TestZipReadAhead: a pulled reader runs at most 127 samples ahead of the
// zip.
func TestZipReadAhead(t *testing.T) {
	for _, n := range []int{1, 5, 40, 200} {
		noise := newProbe(-1)
		got := values(t, stage.Zip2(source.Slice(lo.Range(n)), source.Reader[int](noise), stage.Shortest()))
		if len(got) != n {
			t.Fatalf("got %d samples, want %d", len(got), n)
		}
		if ahead := noise.yielded.Load() - int64(n); ahead < 0 || ahead > 127 {
			t.Errorf("%d samples zipped: endless reader yielded %d more", n, ahead)
		}
	}
}
