package sink_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// rec is a sample with a member of every element type.
type rec struct {
	Pix   []float32 // 2x2
	Tok   []int32   // 3
	Label int64
	Raw   []uint8 // 2
	ID    string
}

func mkrec(i int) rec {
	f := float32(i)
	return rec{
		Pix:   []float32{f, f + 0.25, f + 0.5, f + 0.75},
		Tok:   []int32{int32(i), int32(10 * i), int32(100 * i)},
		Label: int64(i % 3),
		Raw:   []uint8{uint8(i), uint8(255 - i)},
		ID:    "r",
	}
}

func recs(n int) []rec {
	out := make([]rec, n)
	for i := range out {
		out[i] = mkrec(i)
	}
	return out
}

func fields() ([]sink.Field[rec], []sink.Field[rec]) {
	data := []sink.Field[rec]{
		sink.Float32("pix", []int{2, 2}, func(r rec, dst []float32) { copy(dst, r.Pix) }),
		sink.Int32("tok", []int{3}, func(r rec, dst []int32) { copy(dst, r.Tok) }),
		sink.Uint8("raw", []int{2}, func(r rec, dst []uint8) { copy(dst, r.Raw) }),
	}
	label := []sink.Field[rec]{
		sink.Int64("label", nil, func(r rec, dst []int64) { dst[0] = r.Label }),
		// A second tensor from the same member: one-hot, relying on a zeroed dst.
		sink.Float32("onehot", []int{3}, func(r rec, dst []float32) { dst[r.Label] = 1 }),
	}
	return data, label
}

func newSink(size int) *sink.Sink[rec] {
	d, l := fields()
	return sink.New(size, d, l)
}

// want returns the tensors expected for samples from..to-1 with padded.
func want(samples []rec, padded int) *tensor.Batch {
	n := len(samples)
	ts := &tensor.Batch{
		Data: []tensor.Tensor{
			{Name: "pix", Shape: []int{n, 2, 2}, DType: sample.Float32, F32: []float32{}},
			{Name: "tok", Shape: []int{n, 3}, DType: sample.Int32, I32: []int32{}},
			{Name: "raw", Shape: []int{n, 2}, DType: sample.Uint8, U8: []uint8{}},
		},
		Label: []tensor.Tensor{
			{Name: "label", Shape: []int{n}, DType: sample.Int64, I64: []int64{}},
			{Name: "onehot", Shape: []int{n, 3}, DType: sample.Float32, F32: []float32{}},
		},
		Padded: padded,
	}
	for _, r := range samples {
		ts.Data[0].F32 = append(ts.Data[0].F32, r.Pix...)
		ts.Data[1].I32 = append(ts.Data[1].I32, r.Tok...)
		ts.Data[2].U8 = append(ts.Data[2].U8, r.Raw...)
		ts.Label[0].I64 = append(ts.Label[0].I64, r.Label)
		oh := make([]float32, 3)
		oh[r.Label] = 1
		ts.Label[1].F32 = append(ts.Label[1].F32, oh...)
	}
	return ts
}

// same reports whether got holds the tensors of want. It compares what a
// user sees (Data, Label, Padded), not the memory behind got.
func same(got, want *tensor.Batch) bool {
	return got != nil && reflect.DeepEqual(got.Data, want.Data) &&
		reflect.DeepEqual(got.Label, want.Label) && got.Padded == want.Padded
}

func TestProvide(t *testing.T) {
	s := newSink(8)
	wantData := []tensor.Desc{
		{Name: "pix", Shape: []int{8, 2, 2}, DType: sample.Float32},
		{Name: "tok", Shape: []int{8, 3}, DType: sample.Int32},
		{Name: "raw", Shape: []int{8, 2}, DType: sample.Uint8},
	}
	wantLabel := []tensor.Desc{
		{Name: "label", Shape: []int{8}, DType: sample.Int64},
		{Name: "onehot", Shape: []int{8, 3}, DType: sample.Float32},
	}
	d := s.ProvideData()
	if !reflect.DeepEqual(d, wantData) {
		t.Errorf("ProvideData %v, want %v", d, wantData)
	}
	if l := s.ProvideLabel(); !reflect.DeepEqual(l, wantLabel) {
		t.Errorf("ProvideLabel %v, want %v", l, wantLabel)
	}
	d[0].Shape[0] = 99 // the caller's copy
	if s.ProvideData()[0].Shape[0] != 8 {
		t.Error("ProvideData returns the sink's own memory")
	}
	if s.BatchSize() != 8 {
		t.Errorf("BatchSize %d", s.BatchSize())
	}
	if got := wantData[0].String(); got != "pix float32[8 2 2]" {
		t.Errorf("Desc.String %q", got)
	}
}

func TestAssemble(t *testing.T) {
	all := recs(7)
	tests := []struct {
		name    string
		b       batch.Batch[rec]
		padded  int
		wantErr bool
	}{
		{"full", batch.Batch[rec]{Samples: all[:4]}, 0, false},
		{"short", batch.Batch[rec]{Samples: all[4:7]}, 0, false},
		{"padded", batch.Batch[rec]{Samples: []rec{all[5], all[6], all[0], all[1]}, Padded: 2}, 2, false},
		{"one", batch.Batch[rec]{Samples: all[3:4]}, 0, false},
		{"empty", batch.Batch[rec]{}, 0, false},
		{"too large", batch.Batch[rec]{Samples: all[:5]}, 0, true},
		{"padded above len", batch.Batch[rec]{Samples: all[:2], Padded: 3}, 0, true},
		{"negative padded", batch.Batch[rec]{Samples: all[:2], Padded: -1}, 0, true},
	}
	for _, mode := range []string{"fresh", "recycle"} {
		s := newSink(4)
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				ts, err := s.Assemble(tt.b)
				if tt.wantErr {
					if !errors.Is(err, sink.ErrBatch) || ts != nil {
						t.Fatalf("got %v, %v; want nil and ErrBatch", ts, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if w := want(tt.b.Samples, tt.padded); !same(ts, w) {
					t.Errorf("got  %+v\nwant %+v", ts, w)
				}
				if ts.Len() != len(tt.b.Samples) {
					t.Errorf("Rows %d, want %d", ts.Len(), len(tt.b.Samples))
				}
				if mode == "recycle" {
					ts.Release() // the next case writes into this memory
				}
			})
		}
	}
}

func TestAssembleFreshMemoryIsOwned(t *testing.T) {
	s := newSink(4)
	all := recs(8)
	a, err := s.Assemble(batch.Batch[rec]{Samples: all[:4]})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Assemble(batch.Batch[rec]{Samples: all[4:]})
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatal("two batches share a *Tensors")
	}
	a.Data[0].F32[0] = -1
	a.Data[0].Shape[0] = -1
	if w := want(all[4:], 0); !same(b, w) {
		t.Error("changing one batch changed the next")
	}
	all[4].Pix[0] = 42 // the sink copies, it does not keep sample memory
	if b.Data[0].F32[0] == 42 {
		t.Error("tensor shares memory with a sample")
	}
}

func TestAssembleRecycled(t *testing.T) {
	s := newSink(4)
	all := recs(8)
	a, err := s.Assemble(batch.Batch[rec]{Samples: all[:4]})
	if err != nil {
		t.Fatal(err)
	}
	p := &a.Data[0].F32[0]
	a.Release()
	b, err := s.Assemble(batch.Batch[rec]{Samples: all[4:]})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || p != &b.Data[0].F32[0] {
		t.Error("Assemble did not reuse the recycled tensors")
	}
	// The one-hot field writes a single 1 per row: stale ones from the
	// previous batch must have been cleared.
	if w := want(all[4:], 0); !same(b, w) {
		t.Errorf("got  %+v\nwant %+v", b, w)
	}
	// A short batch, then a full one again.
	b.Release()
	short, err := s.Assemble(batch.Batch[rec]{Samples: all[:1]})
	if err != nil {
		t.Fatal(err)
	}
	short.Release()
	c, err := s.Assemble(batch.Batch[rec]{Samples: all[2:6], Padded: 1})
	if err != nil {
		t.Fatal(err)
	}
	if w := want(all[2:6], 1); !same(c, w) {
		t.Errorf("got  %+v\nwant %+v", c, w)
	}
}

func TestAssembleRecycledAllocs(t *testing.T) {
	s := newSink(4)
	b := batch.Batch[rec]{Samples: recs(4)}
	if n := testing.AllocsPerRun(100, func() {
		ts, err := s.Assemble(b)
		if err != nil {
			t.Fatal(err)
		}
		ts.Release()
	}); n != 0 {
		t.Errorf("%v allocations per recycled batch, want 0", n)
	}
}

func TestFillCannotChangeShape(t *testing.T) {
	s := sink.New(3, []sink.Field[int]{
		sink.Float32("x", []int{2}, func(v int, dst []float32) {
			if len(dst) != 2 || cap(dst) != 2 {
				t.Errorf("dst len %d cap %d, want 2 2", len(dst), cap(dst))
			}
			dst[0] = float32(v)
			dst = append(dst, 99, 99) // a copy; the next row is untouched
			dst[1] = -1
		}),
	}, nil)
	ts, err := s.Assemble(batch.Batch[int]{Samples: []int{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if got, w := ts.Data[0].F32, []float32{1, 0, 2, 0, 3, 0}; !reflect.DeepEqual(got, w) {
		t.Errorf("got %v, want %v", got, w)
	}
}

func TestGet(t *testing.T) {
	ts, err := newSink(2).Assemble(batch.Batch[rec]{Samples: recs(2)})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pix", "tok", "raw", "label", "onehot"} {
		if x, ok := ts.Get(name); !ok || x.Name != name {
			t.Errorf("Get(%q) = %v, %v", name, x.Name, ok)
		}
	}
	if _, ok := ts.Get("ID"); ok {
		t.Error("Get found a tensor that does not exist")
	}
}

func TestConstructorsPanic(t *testing.T) {
	f := func(int, []float32) {}
	x := sink.Float32("x", []int{1}, f)
	for name, fn := range map[string]func(){
		"empty name":      func() { sink.Float32("", []int{1}, f) },
		"nil fill":        func() { sink.Int64[int]("x", []int{1}, nil) },
		"zero dim":        func() { sink.Uint8("x", []int{2, 0}, func(int, []uint8) {}) },
		"negative dim":    func() { sink.Int32("x", []int{-1}, func(int, []int32) {}) },
		"batch size 0":    func() { sink.New(0, []sink.Field[int]{x}, nil) },
		"no fields":       func() { sink.New[int](4, nil, nil) },
		"zero field":      func() { sink.New(4, []sink.Field[int]{{}}, nil) },
		"duplicate names": func() { sink.New(4, []sink.Field[int]{x}, []sink.Field[int]{x}) },
		"Slice nil get":   func() { sink.Slice[int, float32]("x", []int{1}, nil) },
		"Slice empty name": func() {
			sink.Slice("", []int{1}, func(int) []uint8 { return nil })
		},
		"Slice zero dim": func() { sink.Slice("x", []int{0}, func(int) []int64 { return nil }) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			fn()
		})
	}
}

func TestFieldKeepsItsShape(t *testing.T) {
	shape := []int{2, 3}
	x := sink.Float32("x", shape, func(int, []float32) {})
	shape[0] = 7
	s := sink.New(1, []sink.Field[int]{x}, nil)
	if got := s.ProvideData()[0].Shape; !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Errorf("shape %v: the field kept the caller's slice", got)
	}
	if got := s.ProvideData()[0].Name; got != "x" {
		t.Errorf("Name %q", got)
	}
}
