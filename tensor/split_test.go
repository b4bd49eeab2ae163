package tensor_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// three returns a batch of n rows with a float32 data tensor of 3 elements
// per row (row i holds i, i+0.25, i+0.5) and an int64 label (row i holds
// 100+i).
func three(n, padded int) *tensor.Batch {
	x := tensor.Tensor{Name: "x", Shape: []int{n, 3}, DType: sample.Float32, F32: make([]float32, 3*n)}
	y := tensor.Tensor{Name: "y", Shape: []int{n}, DType: sample.Int64, I64: make([]int64, n)}
	for i := range n {
		x.F32[3*i], x.F32[3*i+1], x.F32[3*i+2] = float32(i), float32(i)+0.25, float32(i)+0.5
		y.I64[i] = int64(100 + i)
	}
	return &tensor.Batch{Data: []tensor.Tensor{x}, Label: []tensor.Tensor{y}, Padded: padded}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		n, padded, k int
		sizes        []int
		pads         []int
	}{
		{8, 0, 2, []int{4, 4}, []int{0, 0}},
		{8, 0, 3, []int{3, 3, 2}, []int{0, 0, 0}},
		{7, 0, 4, []int{2, 2, 2, 1}, []int{0, 0, 0, 0}},
		{8, 3, 3, []int{3, 3, 2}, []int{0, 1, 2}},
		{8, 5, 2, []int{4, 4}, []int{1, 4}},
		{8, 8, 2, []int{4, 4}, []int{4, 4}},
		{2, 0, 4, []int{1, 1, 0, 0}, []int{0, 0, 0, 0}},
		{0, 0, 2, []int{0, 0}, []int{0, 0}},
		{5, 1, 1, []int{5}, []int{1}},
	}
	for _, tt := range tests {
		b := three(tt.n, tt.padded)
		parts := b.Split(tt.k)
		if len(parts) != tt.k {
			t.Fatalf("n=%d k=%d: %d parts", tt.n, tt.k, len(parts))
		}
		lo := 0
		for i, p := range parts {
			hi := lo + tt.sizes[i]
			if p.Len() != tt.sizes[i] || p.Padded != tt.pads[i] {
				t.Errorf("n=%d padded=%d k=%d part %d: %d rows, %d padded; want %d, %d",
					tt.n, tt.padded, tt.k, i, p.Len(), p.Padded, tt.sizes[i], tt.pads[i])
			}
			x, y := p.Data[0], p.Label[0]
			if x.Shape[0] != hi-lo || x.Shape[1] != 3 || len(x.F32) != 3*(hi-lo) || len(y.I64) != hi-lo {
				t.Errorf("n=%d k=%d part %d: shapes %v %v, lengths %d %d", tt.n, tt.k, i, x.Shape, y.Shape, len(x.F32), len(y.I64))
				continue
			}
			for r := range hi - lo {
				if x.F32[3*r] != float32(lo+r) || x.F32[3*r+2] != float32(lo+r)+0.5 || y.I64[r] != int64(100+lo+r) {
					t.Errorf("n=%d k=%d part %d row %d holds %v, %d; want row %d", tt.n, tt.k, i, r, x.F32[3*r:3*r+3], y.I64[r], lo+r)
				}
			}
			lo = hi
		}
	}
}

func TestSplitSharesMemory(t *testing.T) {
	b := three(4, 0)
	parts := b.Split(2)
	parts[1].Data[0].F32[0] = -7 // row 2, first element
	if b.Data[0].F32[2*3] != -7 {
		t.Error("a part does not share the batch's memory")
	}
	parts[0].Label[0].I64 = append(parts[0].Label[0].I64, 99) // capped: must not reach part 1
	if parts[1].Label[0].I64[0] != 102 {
		t.Error("appending to a part overwrote the next one")
	}
	parts[0].Data[0].Shape[0] = 100
	if b.Data[0].Shape[0] != 4 {
		t.Error("a part shares its shape with the batch")
	}
}

func TestSplitPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for k = 0")
		}
	}()
	three(2, 0).Split(0)
}

func TestSplitInt8(t *testing.T) {
	x := tensor.Tensor{Name: "x", Shape: []int{5, 2}, DType: sample.Int8, I8: make([]int8, 10)}
	for i := range x.I8 {
		x.I8[i] = int8(i - 5)
	}
	b := &tensor.Batch{Data: []tensor.Tensor{x}, Padded: 1}
	parts := b.Split(2)
	lo := 0
	for i, p := range parts {
		v := p.Data[0]
		if v.DType != sample.Int8 || len(v.I8) != 2*v.Shape[0] || v.F32 != nil || v.U8 != nil {
			t.Fatalf("part %d: dtype %v shape %v, %d int8 elements", i, v.DType, v.Shape, len(v.I8))
		}
		for j, e := range v.I8 {
			if want := int8(2*lo + j - 5); e != want {
				t.Errorf("part %d element %d = %d, want %d", i, j, e, want)
			}
		}
		lo += v.Shape[0]
	}
	parts[0].Data[0].I8 = append(parts[0].Data[0].I8, 99) // capped: must not reach part 1
	if parts[1].Data[0].I8[0] != 1 {
		t.Error("appending to an int8 part overwrote the next one")
	}
	if parts[0].Len() != 3 || parts[1].Len() != 2 || parts[1].Padded != 1 {
		t.Errorf("parts of %d and %d rows, padded %d; want 3, 2, 1", parts[0].Len(), parts[1].Len(), parts[1].Padded)
	}
}
