package array_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/array"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// xy returns n samples of 2 float32 features (10i, 10i+1) and int32 labels
// i, so every row says which sample it is.
func xy(n int) (x []float32, y []int32) {
	for i := range n {
		x = append(x, float32(10*i), float32(10*i+1))
		y = append(y, int32(i))
	}
	return x, y
}

func batches(t *testing.T, p *array.Provider, ctx context.Context) []*tensor.Batch {
	t.Helper()
	ts, err := source.Collect(ctx, source.Reader[*tensor.Batch](p))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func get(t *testing.T, ts *tensor.Batch, name string) tensor.Tensor {
	t.Helper()
	v, ok := ts.Get(name)
	if !ok {
		t.Fatalf("no tensor %q", name)
	}
	return v
}

func TestBatchesAndPadding(t *testing.T) {
	x, y := xy(7)
	tests := []struct {
		name    string
		opts    []array.Option
		batches int
		padded  int
		rows    int
		dataPad float32
		labPad  int32
	}{
		{"batch 3", []array.Option{array.BatchSize(3)}, 3, 2, 3, 0, 0},
		{"batch 3, padding values", []array.Option{array.BatchSize(3), array.Padding(-1, 99)}, 3, 2, 3, -1, 99},
		{"batch 7", []array.Option{array.BatchSize(7)}, 1, 0, 7, 0, 0},
		{"batch 0 = all", nil, 1, 0, 7, 0, 0},
		{"batch 10", []array.Option{array.BatchSize(10)}, 1, 3, 10, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := array.New([]array.Array{array.Float32("data", []int{2}, x)}, []array.Array{array.Int32("softmax_label", nil, y)}, tt.opts...)
			got := batches(t, p, context.Background())
			if len(got) != tt.batches {
				t.Fatalf("%d batches, want %d", len(got), tt.batches)
			}
			next := 0
			for bi, ts := range got {
				d, l := get(t, ts, "data"), get(t, ts, "softmax_label")
				if ts.Len() != tt.rows || !slices.Equal(d.Shape, []int{tt.rows, 2}) || !slices.Equal(l.Shape, []int{tt.rows}) {
					t.Fatalf("batch %d: shapes %v %v", bi, d.Shape, l.Shape)
				}
				last := bi == len(got)-1
				if (last && ts.Padded != tt.padded) || (!last && ts.Padded != 0) {
					t.Errorf("batch %d: %d padded", bi, ts.Padded)
				}
				for r := range ts.Len() {
					if r >= ts.Len()-ts.Padded {
						if d.F32[2*r] != tt.dataPad || d.F32[2*r+1] != tt.dataPad || l.I32[r] != tt.labPad {
							t.Errorf("padding row %d: %v %v", r, d.F32[2*r:2*r+2], l.I32[r])
						}
						continue
					}
					if l.I32[r] != int32(next) || d.F32[2*r] != float32(10*next) || d.F32[2*r+1] != float32(10*next+1) {
						t.Errorf("row %d: %v %v, want sample %d", r, d.F32[2*r:2*r+2], l.I32[r], next)
					}
					next++
				}
			}
			if next != 7 {
				t.Errorf("%d samples, want 7", next)
			}
			if p.Len() != 7 {
				t.Errorf("Len %d", p.Len())
			}
		})
	}
}

func TestShuffle(t *testing.T) {
	x, y := xy(50)
	p := array.New([]array.Array{array.Float32("x", []int{2}, x)}, []array.Array{array.Int32("y", nil, y)}, array.BatchSize(8), array.Shuffle(3))
	order := func(ts []*tensor.Batch) []int32 {
		var out []int32
		for _, b := range ts {
			d, l := get(t, b, "x"), get(t, b, "y")
			for r := range b.Len() - b.Padded {
				if d.F32[2*r] != float32(10*l.I32[r]) {
					t.Fatalf("data and label rows apart: %v / %d", d.F32[2*r], l.I32[r])
				}
				out = append(out, l.I32[r])
			}
		}
		return out
	}
	e0 := order(batches(t, p, context.Background()))
	e1 := order(batches(t, p, context.Background()))
	e1again := order(batches(t, p, source.WithEpoch(context.Background(), 1)))
	same := order(batches(t, array.New([]array.Array{array.Float32("x", []int{2}, x)}, []array.Array{array.Int32("y", nil, y)}, array.BatchSize(8), array.Shuffle(3)), context.Background()))
	if !slices.Equal(e0, same) || !slices.Equal(e1, e1again) {
		t.Error("same seed and epoch, different order")
	}
	if slices.Equal(e0, e1) {
		t.Error("two epochs in the same order")
	}
	for _, o := range [][]int32{e0, e1} {
		s := slices.Clone(o)
		slices.Sort(s)
		for i, v := range s {
			if v != int32(i) {
				t.Fatalf("epoch is not a permutation: %v", o)
			}
		}
	}
	if slices.IsSorted(e0) {
		t.Error("not shuffled")
	}
}

func TestElementTypesAndSeveralArrays(t *testing.T) {
	p := array.New(
		[]array.Array{
			array.Uint8("pixels", []int{2, 2}, []uint8{1, 2, 3, 4, 5, 6, 7, 8}),
			array.Int64("ids", nil, []int64{1 << 40, 2}),
			array.Float32Rows("feat", [][]float32{{0.5}, {1.5}}),
		},
		[]array.Array{array.Float32("a", nil, []float32{1, 2}), array.Int32("b", []int{3}, []int32{1, 2, 3, 4, 5, 6})},
		array.BatchSize(3), array.Padding(7, -1))
	if d := p.ProvideData(); len(d) != 3 || d[0].String() != "pixels uint8[3 2 2]" || d[1].String() != "ids int64[3]" || d[2].String() != "feat float32[3 1]" {
		t.Errorf("provide data %v", d)
	}
	if l := p.ProvideLabel(); len(l) != 2 || l[1].String() != "b int32[3 3]" {
		t.Errorf("provide label %v", l)
	}
	ts := batches(t, p, context.Background())
	if len(ts) != 1 || ts[0].Padded != 1 {
		t.Fatalf("%d batches", len(ts))
	}
	b := ts[0]
	if u := get(t, b, "pixels").U8; !slices.Equal(u, []uint8{1, 2, 3, 4, 5, 6, 7, 8, 7, 7, 7, 7}) {
		t.Errorf("pixels %v", u)
	}
	if v := get(t, b, "ids").I64; !slices.Equal(v, []int64{1 << 40, 2, 7}) {
		t.Errorf("ids %v", v)
	}
	if v := get(t, b, "feat").F32; !slices.Equal(v, []float32{0.5, 1.5, 7}) {
		t.Errorf("feat %v", v)
	}
	if v := get(t, b, "b").I32; !slices.Equal(v, []int32{1, 2, 3, 4, 5, 6, -1, -1, -1}) {
		t.Errorf("b %v", v)
	}
}

func TestRelease(t *testing.T) {
	x, _ := xy(6)
	p := array.New([]array.Array{array.Float32("x", []int{2}, x)}, nil, array.BatchSize(2))
	var first *tensor.Batch
	n := 0
	for ts, err := range p.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = ts
		} else if ts != first {
			t.Error("Release: a new *Batch")
		}
		if d := get(t, ts, "x").F32; d[0] != float32(20*n) {
			t.Errorf("batch %d: %v", n, d)
		}
		ts.Release()
		n++
	}
	if n != 3 {
		t.Errorf("%d batches", n)
	}
}

func TestEarlyBreakAndCancel(t *testing.T) {
	x, _ := xy(1000)
	p := array.New([]array.Array{array.Float32("x", []int{2}, x)}, nil, array.BatchSize(1))
	sourcetest.BreakAfter(t, p, 5)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	var got error
	for _, err := range p.All(ctx) {
		if err != nil {
			got = err
			break
		}
		if n++; n == 10 {
			cancel()
		}
	}
	cancel()
	if !errors.Is(got, context.Canceled) || n >= 1000 {
		t.Errorf("cancelled epoch: %d batches, %v", n, got)
	}
}

func TestEmpty(t *testing.T) {
	p := array.New([]array.Array{array.Float32("x", []int{2}, nil)}, nil)
	if got := batches(t, p, context.Background()); len(got) != 0 || p.Len() != 0 {
		t.Errorf("%d batches from no samples", len(got))
	}
}

func TestPanics(t *testing.T) {
	x, y := xy(4)
	for name, f := range map[string]func(){
		"no data": func() { array.New(nil, nil) },
		"different lengths": func() {
			array.New([]array.Array{array.Float32("x", []int{2}, x)}, []array.Array{array.Int32("y", nil, y[:3])})
		},
		"ragged data":    func() { array.Float32("x", []int{3}, x) },
		"empty name":     func() { array.Int32("", nil, y) },
		"zero dimension": func() { array.Uint8("u", []int{0}, nil) },
		"same names": func() {
			array.New([]array.Array{array.Float32("x", []int{2}, x)}, []array.Array{array.Int32("x", nil, y)})
		},
		"negative batch": func() { array.BatchSize(-1) },
		"ragged rows":    func() { array.Float32Rows("r", [][]float32{{1, 2}, {3}}) },
		"no rows":        func() { array.Float32Rows("r", nil) },
		"zero Array":     func() { array.New([]array.Array{{}}, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestArrayAccessors(t *testing.T) {
	a := array.Float32("x", []int{2, 3}, make([]float32, 12))
	sh := a.Shape()
	sh[0] = 99
	if a.Name() != "x" || a.Len() != 2 || !slices.Equal(a.Shape(), []int{2, 3}) {
		t.Errorf("%s %d %v", a.Name(), a.Len(), a.Shape())
	}
}

// BenchmarkEpoch yields 60,000 samples of 784 float32 values and a label
// in batches of 100: the cost of copying arrays into batch tensors.
func BenchmarkEpoch(b *testing.B) {
	const n, dim = 60000, 784
	x := make([]float32, n*dim)
	y := make([]float32, n)
	p := array.New([]array.Array{array.Float32("data", []int{dim}, x)}, []array.Array{array.Float32("softmax_label", nil, y)},
		array.BatchSize(100), array.Shuffle(1))
	b.ReportAllocs()
	b.SetBytes(n * (dim + 1) * 4)
	for b.Loop() {
		for ts, err := range p.All(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
			ts.Release()
		}
	}
	total := float64(n) * float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/sample")
	b.ReportMetric(total/b.Elapsed().Seconds(), "samples/s")
}

// TestContract checks the provider against the reader contract, plain and
// shuffled, with a short last batch.
func TestContract(t *testing.T) {
	x, y := xy(103)
	for _, opts := range [][]array.Option{{array.BatchSize(10)}, {array.BatchSize(10), array.Shuffle(3)}, nil} {
		p := array.New([]array.Array{array.Float32("x", []int{2}, x)}, []array.Array{array.Int32("y", nil, y)}, opts...)
		if err := sourcetest.TestReader(p); err != nil {
			t.Fatalf("%d options: %v", len(opts), err)
		}
	}
}
