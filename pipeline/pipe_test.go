package pipeline_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestBuilderSteps(t *testing.T) {
	even := func(x int) bool { return x%2 == 0 }
	tests := []struct {
		name string
		p    *pipeline.Pipe[int]
		want []int
	}{
		{"source", pipeline.From(count(5)), seq(0, 5)},
		{"filter", pipeline.From(count(10)).Filter(even), []int{0, 2, 4, 6, 8}},
		{"take", pipeline.From(count(10)).Take(3), seq(0, 3)},
		{"skip", pipeline.From(count(10)).Skip(7), seq(7, 10)},
		{"filter-skip-take", pipeline.From(count(20)).Filter(even).Skip(1).Take(3), []int{2, 4, 6}},
		{"buffered", pipeline.From(count(100)).Buffered(4), seq(0, 100)},
		{"repeat", pipeline.From(count(3)).Repeat(2), []int{0, 1, 2, 0, 1, 2}},
		{"cache", pipeline.From(count(4)).Cache(), seq(0, 4)},
		{"shard", pipeline.From(count(10)).Shard(3, 1), []int{1, 4, 7}},
		{"map", pipeline.Map(pipeline.From(count(4)), func(x int) int { return x * x }), []int{0, 1, 4, 9}},
		{"apply", pipeline.Apply(pipeline.From(count(5)), func(r source.Reader[int]) source.Reader[int] {
			return stage.Take(r, 2)
		}), seq(0, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for pass := range 2 { // a pipe is re-iterable
				got, err := collect(t, context.Background(), tt.p)
				if err != nil {
					t.Fatalf("pass %d: %v", pass, err)
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("pass %d: got %v, want %v", pass, got, tt.want)
				}
			}
		})
	}
}

// TestBuilderZeroSizesArePaddleOff checks that Buffered(0) and Shuffle(0)
// turn prefetching and shuffling off, as PaddlePaddle's buffered and
// shuffle decorators accept 0: the step stays in the pipeline (for stats
// and names) and passes every sample through in order.
func TestBuilderZeroSizesArePaddleOff(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    *pipeline.Pipe[int]
	}{
		{"buffered", pipeline.From(count(50)).Buffered(0)},
		{"shuffle", pipeline.From(count(50)).Shuffle(0, 3)},
		{"both", pipeline.From(count(50)).Shuffle(0, 3).Buffered(0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := collect(t, context.Background(), tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, seq(0, 50)) {
				t.Errorf("got %v, want 0..49 in order", got)
			}
			st := tt.p.Stats()
			if last := st[len(st)-1]; last.Samples != 50 {
				t.Errorf("last step %+v, want 50 samples out", last)
			}
		})
	}
	for name, f := range map[string]func(){
		"Buffered(-1)": func() { pipeline.From(count(1)).Buffered(-1) },
		"Shuffle(-1)":  func() { pipeline.From(count(1)).Shuffle(-1, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

func TestBuilderShuffleIsAPermutationAndRepeats(t *testing.T) {
	build := func(seed uint64) *pipeline.Pipe[int] { return pipeline.From(count(100)).Shuffle(32, seed) }
	a, err := source.Collect(context.Background(), build(7))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := source.Collect(context.Background(), build(7))
	c, _ := source.Collect(context.Background(), build(8))
	if !slices.Equal(sorted(a), seq(0, 100)) {
		t.Fatalf("not a permutation: %v", a)
	}
	if slices.Equal(a, seq(0, 100)) {
		t.Fatal("shuffle kept the order")
	}
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different orders")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same order")
	}
}

func TestTypedSteps(t *testing.T) {
	ctx := context.Background()
	p := pipeline.From(count(7))

	strs, err := source.Collect(ctx, pipeline.MapErr(p, func(x int) (string, error) {
		return string(rune('a' + x)), nil
	}))
	if err != nil || !slices.Equal(strs, []string{"a", "b", "c", "d", "e", "f", "g"}) {
		t.Fatalf("MapErr: %v %v", strs, err)
	}

	bs, err := source.Collect(ctx, pipeline.Batch(p, 3, batch.Keep))
	if err != nil || len(bs) != 3 || !slices.Equal(bs[2].Samples, []int{6}) || !slices.Equal(bs[0].Samples, []int{0, 1, 2}) {
		t.Fatalf("Batch: %v %v", bs, err)
	}

	en, err := source.Collect(ctx, pipeline.Enumerate(p.Skip(5)))
	if err != nil || len(en) != 2 || en[1] != (stage.Numbered[int]{Index: 1, Value: 6}) {
		t.Fatalf("Enumerate: %v %v", en, err)
	}

	z, err := source.Collect(ctx, pipeline.Zip2(p.Take(2), pipeline.From(count(2)).Named("other")))
	if err != nil || len(z) != 2 || z[1] != (stage.Tuple2[int, int]{A: 1, B: 1}) {
		t.Fatalf("Zip2: %v %v", z, err)
	}
	z3 := pipeline.Zip3(p.Take(2), count(2), pipeline.From(count(2)).Named("third"))
	if got, err := source.Collect(ctx, z3); err != nil || len(got) != 2 || got[1] != (stage.Tuple3[int, int, int]{A: 1, B: 1, C: 1}) {
		t.Fatalf("Zip3: %v %v", got, err)
	}
	if names := stepNames(z3); !slices.Equal(names, []string{"source", "take", "third", "zip"}) {
		t.Errorf("Zip3 steps %v", names)
	}
	z4 := pipeline.Zip4(p, count(7), count(7), count(6))
	if _, err := source.Collect(ctx, z4); !errors.Is(err, stage.ErrNotAligned) {
		t.Fatalf("Zip4 of unequal readers: %v, want %v", err, stage.ErrNotAligned)
	}

	seqs := pipeline.Batch(pipeline.From(source.Slice([][]int{{1}, {2, 3}, {4, 5, 6}})), 2, batch.Keep)
	padded := pipeline.PadSeqs(seqs, 0, 0)
	if got, err := source.Collect(ctx, padded); err != nil || len(got) != 2 || !slices.Equal(got[0].Data, []int{1, 0, 2, 3}) ||
		len(got[1].Lens) != 1 || padded.Stats().Last().Name != "pad-seqs" {
		t.Fatalf("PadSeqs: %v %v", got, err)
	}
	if _, err := source.Collect(ctx, pipeline.PadSeqs(seqs, 2, 0)); !errors.Is(err, batch.ErrTooLong) {
		t.Fatalf("PadSeqs to a fixed length: %v, want %v", err, batch.ErrTooLong)
	}
}

func stepNames(st interface{ Stats() pipeline.Stats }) []string {
	var names []string
	for _, s := range st.Stats() {
		names = append(names, s.Name)
	}
	return names
}

func TestPipeIsAReader(t *testing.T) {
	var r source.Reader[int] = pipeline.From(count(4)).Take(3)
	got, err := source.Collect(context.Background(), stage.Map(r, func(x int) int { return -x }))
	if err != nil || !slices.Equal(got, []int{0, -1, -2}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestUpstreamErrorReachesConsumer(t *testing.T) {
	p := pipeline.Map(pipeline.From(failAfter(5, errBoom)).Filter(func(int) bool { return true }).Buffered(2),
		func(x int) int { return x + 1 })
	got, err := collect(t, context.Background(), p)
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want %v", err, errBoom)
	}
	if !slices.Equal(got, seq(1, 6)) {
		t.Fatalf("samples before the error: %v", got)
	}
	if s := p.Stats(); s[0].Errors != 1 || s.Last().Errors != 1 {
		t.Fatalf("errors not counted: %+v", s)
	}
}

func TestEarlyBreakAndCancel(t *testing.T) {
	p := pipeline.From(endless()).Buffered(8).Filter(func(x int) bool { return x%3 == 0 })
	sourcetest.BreakAfter(t, p, 10)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var last error
	for _, err := range p.All(ctx) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 10 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancelled pass ended with %v", last)
	}
}

func TestNamesAndLineage(t *testing.T) {
	a := pipeline.From(count(3)).Named("numbers")
	b := pipeline.Map(a.Filter(func(int) bool { return true }).Named("all"), func(x int) int { return x })
	z := pipeline.Zip2(b, pipeline.From(count(3)).Named("labels"))
	var names []string
	for _, s := range z.Stats() {
		names = append(names, s.Name)
	}
	want := []string{"numbers", "all", "map", "labels", "zip"}
	if !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	if last := z.Stats().Last().Name; last != "zip" {
		t.Fatalf("the last step's name = %q", last)
	}
}

func TestConstructorsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"From nil":   func() { pipeline.From[int](nil) },
		"Apply nil":  func() { pipeline.Apply[int, int](pipeline.From(count(1)), nil) },
		"FanIn none": func() { pipeline.FanIn[int](nil, 1) },
		"FanIn nil":  func() { pipeline.FanIn([]source.Reader[int]{nil}, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}
