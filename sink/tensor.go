package sink

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Tensor is one named tensor of a batch: flat, row-major data with a shape
// whose first dimension is the batch. Only the slice of its DType is set
// (F32 for sample.Float32, I32 for sample.Int32, I64 for sample.Int64, U8
// for sample.Uint8); it holds exactly sample.Elems(Shape) elements.
type Tensor struct {
	Name  string
	Shape []int
	DType sample.DType
	F32   []float32
	I32   []int32
	I64   []int64
	U8    []uint8
}

// Rows returns the batch dimension of t: Shape[0].
func (t Tensor) Rows() int { return t.Shape[0] }

// rows returns a view of rows lo..hi of t, with its shape stored in shape
// (len(t.Shape) elements). The view shares t's memory.
func (t Tensor) rows(lo, hi int, shape []int) Tensor {
	copy(shape, t.Shape)
	shape[0] = hi - lo
	e := sample.Elems(t.Shape[1:])
	a, b := lo*e, hi*e
	v := Tensor{Name: t.Name, Shape: shape, DType: t.DType}
	switch t.DType {
	case sample.Float32:
		v.F32 = t.F32[a:b:b]
	case sample.Int32:
		v.I32 = t.I32[a:b:b]
	case sample.Int64:
		v.I64 = t.I64[a:b:b]
	case sample.Uint8:
		v.U8 = t.U8[a:b:b]
	}
	return v
}

// Tensors are the data and label tensors of one batch, in the order of the
// sink's fields. Padded is the number of padding samples: the last Padded
// rows of every tensor.
type Tensors struct {
	Data, Label []Tensor
	Padded      int

	a *arena // the memory behind them, for Sink.Recycle; nil for a Split part
}

// Rows returns the batch dimension shared by all the tensors, padding
// included.
func (ts *Tensors) Rows() int {
	if len(ts.Data) > 0 {
		return ts.Data[0].Rows()
	}
	if len(ts.Label) > 0 {
		return ts.Label[0].Rows()
	}
	return 0
}

// Get returns the data or label tensor with the given name.
func (ts *Tensors) Get(name string) (Tensor, bool) {
	for _, t := range ts.Data {
		if t.Name == name {
			return t, true
		}
	}
	for _, t := range ts.Label {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}

// Split cuts the batch into k parts along the batch dimension, for data
// parallelism over k devices (MXNet.jl's load_data! with slices). The parts
// are views: they share the memory of ts, and once ts is handed to
// Sink.Recycle they are no longer valid. A part cannot itself be recycled;
// recycle ts.
//
// Part sizes differ by at most one: with n rows, the first n%k parts get
// n/k+1 rows and the others n/k, so a batch smaller than k gives some
// parts with no rows. Padding rows stay last, so they land in the last
// parts; each part's Padded counts the padding rows it holds. Split panics
// when k < 1.
func (ts *Tensors) Split(k int) []*Tensors {
	if k < 1 {
		panic(fmt.Sprintf("sink: Split: %d parts", k))
	}
	n := ts.Rows()
	nt := len(ts.Data) + len(ts.Label)
	dims := 0
	for _, t := range ts.Data {
		dims += len(t.Shape)
	}
	for _, t := range ts.Label {
		dims += len(t.Shape)
	}
	parts := make([]Tensors, k)
	views := make([]Tensor, k*nt)
	shapes := make([]int, k*dims)
	out := make([]*Tensors, k)
	firstPad := n - ts.Padded
	lo := 0
	for i := range parts {
		hi := lo + n/k
		if i < n%k {
			hi++
		}
		v := views[i*nt : (i+1)*nt : (i+1)*nt]
		for j, t := range ts.Data {
			v[j] = t.rows(lo, hi, shapes[:len(t.Shape):len(t.Shape)])
			shapes = shapes[len(t.Shape):]
		}
		for j, t := range ts.Label {
			v[len(ts.Data)+j] = t.rows(lo, hi, shapes[:len(t.Shape):len(t.Shape)])
			shapes = shapes[len(t.Shape):]
		}
		parts[i] = Tensors{Data: v[:len(ts.Data):len(ts.Data)], Label: v[len(ts.Data):], Padded: max(0, hi-max(lo, firstPad))}
		out[i] = &parts[i]
		lo = hi
	}
	return out
}
