package sink_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// vec is a sample whose members are slices of any length.
type vec struct {
	F []float32
	I []int32
	L []int64
	U []uint8
}

func vecSink(size int) *sink.Sink[vec] {
	return sink.New(size, []sink.Field[vec]{
		sink.Slice("f", []int{2, 2}, func(v vec) []float32 { return v.F }),
		sink.Slice("i", []int{3}, func(v vec) []int32 { return v.I }),
		sink.Slice("u", []int{2}, func(v vec) []uint8 { return v.U }),
	}, []sink.Field[vec]{
		sink.Slice("l", nil, func(v vec) []int64 { return v.L }),
	})
}

func goodVec(k int) vec {
	f := float32(k)
	return vec{
		F: []float32{f, f + 1, f + 2, f + 3},
		I: []int32{int32(k), int32(-k), 7},
		L: []int64{int64(k)},
		U: []uint8{uint8(k), 9},
	}
}

// TestSliceWrongLengthIsAnError checks every dtype: a sample one element
// short or one too long is an error naming the field, the row of the batch
// and both lengths, never a truncated or zero-filled row.
func TestSliceWrongLengthIsAnError(t *testing.T) {
	short := func(k int, cut func(*vec)) []vec {
		b := []vec{goodVec(0), goodVec(1), goodVec(2)}
		cut(&b[k])
		return b
	}
	tests := []struct {
		name    string
		samples []vec
		msg     string
	}{
		{"float32 short", short(1, func(v *vec) { v.F = v.F[:3] }), `field "f", row 1 of the batch: 3 elements, want 4`},
		{"float32 long", short(2, func(v *vec) { v.F = append(v.F, 5) }), `field "f", row 2 of the batch: 5 elements, want 4`},
		{"int32 nil", short(0, func(v *vec) { v.I = nil }), `field "i", row 0 of the batch: 0 elements, want 3`},
		{"uint8 long", short(1, func(v *vec) { v.U = append(v.U, 1) }), `field "u", row 1 of the batch: 3 elements, want 2`},
		{"int64 scalar long", short(2, func(v *vec) { v.L = []int64{1, 2} }), `field "l", row 2 of the batch: 2 elements, want 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := vecSink(3)
			ts, err := s.Assemble(batch.Batch[vec]{Samples: tt.samples})
			if err == nil {
				t.Fatalf("no error; got tensors %+v", ts)
			}
			if ts != nil || !errors.Is(err, sink.ErrSampleShape) || !errors.Is(err, tensorfeed.ErrBadData) ||
				!strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, %v; want nil and an error wrapping ErrSampleShape and ErrBadData with %q", ts, err, tt.msg)
			}
			// The sink still works, in the memory the failed batch was
			// partly written into.
			good := []vec{goodVec(3), goodVec(4), goodVec(5)}
			ok, err := s.Assemble(batch.Batch[vec]{Samples: good})
			if err != nil {
				t.Fatal(err)
			}
			checkVecs(t, ok, good)
			ok.Release()
		})
	}
}

func TestSliceTensorizeNamesTheBatch(t *testing.T) {
	vs := []vec{goodVec(0), goodVec(1), goodVec(2), goodVec(3), goodVec(4)}
	vs[3].I = vs[3].I[:1]
	var errs []error
	n := 0
	for _, err := range pipeline.TensorizeBatches(pipeline.From(batch.Of(source.Slice(vs), 2, batch.Keep)), vecSink(2)).All(context.Background()) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if n != 1 || len(errs) != 1 || !errors.Is(errs[0], tensorfeed.ErrBadData) ||
		!strings.Contains(errs[0].Error(), `batch 1 of the pass`) ||
		!strings.Contains(errs[0].Error(), `field "i", row 1 of the batch: 1 elements, want 3`) {
		t.Errorf("%d batches, errors %v", n, errs)
	}
}

func checkVecs(t *testing.T, ts *tensor.Batch, in []vec) {
	t.Helper()
	n := len(in)
	want := []tensor.Tensor{
		{Name: "f", Shape: []int{n, 2, 2}, DType: sample.Float32},
		{Name: "i", Shape: []int{n, 3}, DType: sample.Int32},
		{Name: "u", Shape: []int{n, 2}, DType: sample.Uint8},
	}
	var l []int64
	for _, v := range in {
		want[0].F32 = append(want[0].F32, v.F...)
		want[1].I32 = append(want[1].I32, v.I...)
		want[2].U8 = append(want[2].U8, v.U...)
		l = append(l, v.L...)
	}
	for i, w := range want {
		g := ts.Data[i]
		if g.Name != w.Name || !slices.Equal(g.Shape, w.Shape) || g.DType != w.DType ||
			!slices.Equal(g.F32, w.F32) || !slices.Equal(g.I32, w.I32) || !slices.Equal(g.U8, w.U8) {
			t.Errorf("got %+v, want %+v", g, w)
		}
	}
	if got := ts.Label[0].I64; !slices.Equal(got, l) {
		t.Errorf("label %v, want %v", got, l)
	}
}

func TestSliceCopies(t *testing.T) {
	s := vecSink(2)
	in := []vec{goodVec(1), goodVec(2)}
	for range 3 { // new memory, then recycled memory
		ts, err := s.Assemble(batch.Batch[vec]{Samples: in})
		if err != nil {
			t.Fatal(err)
		}
		checkVecs(t, ts, in)
		in[0].F[0] = 99 // the tensor does not share the sample's memory
		if ts.Data[0].F32[0] == 99 {
			t.Error("the tensor shares memory with a sample")
		}
		in[0].F[0] = 1
		ts.Release()
	}
}

func TestSliceAllocs(t *testing.T) {
	s := vecSink(4)
	b := batch.Batch[vec]{Samples: []vec{goodVec(0), goodVec(1), goodVec(2), goodVec(3)}}
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
