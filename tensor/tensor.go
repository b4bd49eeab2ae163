// Package tensor holds what a pipeline hands the training loop: named,
// shaped, contiguous tensors, grouped into the Batch of one step, and the
// one protocol by which their memory is reused.
//
// # Ownership and reuse
//
// A Batch belongs to its consumer. When the consumer is done with it, it
// calls Release, and the producer that made it (a sink, an image record
// iterator) may fill the same memory again. Only the consumer releases, so
// a prefetching stage between producer and consumer can never be handed
// memory the consumer still reads. A batch that is never released is
// simply garbage collected; reuse is an optimisation, never a requirement.
package tensor

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Tensor is one named tensor of a batch: flat, row-major data with a shape
// whose first dimension is the batch. Only the slice of its DType is set
// (F32 for sample.Float32, I32 for sample.Int32, I64 for sample.Int64, U8
// for sample.Uint8, I8 for sample.Int8); it holds exactly
// sample.Elems(Shape) elements.
type Tensor struct {
	Name  string
	Shape []int
	DType sample.DType
	F32   []float32
	I32   []int32
	I64   []int64
	U8    []uint8
	I8    []int8
}

// Rows returns a view of rows lo..hi of t, with its shape stored in shape
// (len(t.Shape) elements; nil allocates one). The view shares t's memory.
func (t Tensor) Rows(lo, hi int, shape []int) Tensor {
	if shape == nil {
		shape = make([]int, len(t.Shape))
	}
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
	case sample.Int8:
		v.I8 = t.I8[a:b:b]
	}
	return v
}

// Desc describes a tensor before any data exists (MXNet's DataDesc, an
// entry of provide_data / provide_label): its name, its shape for a full
// batch, batch dimension first, and its element type.
type Desc struct {
	Name  string
	Shape []int
	DType sample.DType
}

// String formats d as "name dtype[shape]", e.g. "image float32[128 784]".
func (d Desc) String() string { return fmt.Sprintf("%s %v%v", d.Name, d.DType, d.Shape) }

// Recycler is implemented by producers of batches that reuse their memory:
// Release hands a batch back to the Recycler that made it.
type Recycler interface {
	Recycle(b *Batch)
}

// Batch is the data and label tensors of one batch, in the order of the
// producer's fields. Padded is the number of padding samples: the last
// Padded rows of every tensor (MXNet's pad, MXNet.jl's count_samples is
// Len() - Padded).
type Batch struct {
	Data, Label []Tensor
	Padded      int

	owner Recycler // who takes the memory back (SetOwner); nil: nobody (a Split part, a batch made by hand)
}

// SetOwner sets the Recycler that Release hands b to. A producer that
// reuses the Batch value itself calls it each time it hands b out again.
func (b *Batch) SetOwner(owner Recycler) { b.owner = owner }

// Release hands the batch's memory back to the producer that made it, which
// may then overwrite it: the caller must not use b, its tensors or its Split
// parts afterwards. Releasing twice, or releasing a batch whose producer
// does not reuse memory, does nothing.
func (b *Batch) Release() {
	if o := b.owner; o != nil {
		b.owner = nil
		o.Recycle(b)
	}
}

// Len returns the batch dimension shared by all the tensors, padding
// included.
func (b *Batch) Len() int {
	if len(b.Data) > 0 {
		return b.Data[0].Shape[0]
	}
	if len(b.Label) > 0 {
		return b.Label[0].Shape[0]
	}
	return 0
}

// Get returns the data or label tensor with the given name.
func (b *Batch) Get(name string) (Tensor, bool) {
	for _, t := range b.Data {
		if t.Name == name {
			return t, true
		}
	}
	for _, t := range b.Label {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}

// Split cuts the batch into k parts along the batch dimension, for data
// parallelism over k devices (MXNet.jl's load_data! with slices). The parts
// are views: they share the memory of b, and once b is released they are no
// longer valid. A part's Release does nothing; release b.
//
// Part sizes differ by at most one: with n rows, the first n%k parts get
// n/k+1 rows and the others n/k, so a batch smaller than k gives some
// parts with no rows. Padding rows stay last, so they land in the last
// parts; each part's Padded counts the padding rows it holds. Split panics
// when k < 1.
func (b *Batch) Split(k int) []*Batch {
	if k < 1 {
		panic(fmt.Sprintf("tensor: Split: %d parts", k))
	}
	n := b.Len()
	bounds := make([]int, k+1)
	for i := range k {
		bounds[i+1] = bounds[i] + n/k
		if i < n%k {
			bounds[i+1]++
		}
	}
	return b.split(bounds)
}

// SplitAt cuts the batch at the given row boundaries: part i holds rows
// at[i-1]..at[i] (from 0 for the first part, to Len() for the last), so
// SplitAt(32, 96) gives parts of 32, 64 and Len()-96 rows, for devices of
// unequal speed. The parts are views, as for Split. SplitAt panics unless
// the boundaries are ascending and within 0..Len().
func (b *Batch) SplitAt(at ...int) []*Batch {
	n := b.Len()
	bounds := make([]int, 0, len(at)+2)
	bounds = append(append(append(bounds, 0), at...), n)
	for i := 1; i < len(bounds); i++ {
		if bounds[i] < bounds[i-1] || bounds[i] > n {
			panic(fmt.Sprintf("tensor: SplitAt%v: boundaries must ascend within 0..%d", at, n))
		}
	}
	return b.split(bounds)
}

// split makes the views between consecutive bounds.
func (b *Batch) split(bounds []int) []*Batch {
	k := len(bounds) - 1
	nd, nt := len(b.Data), len(b.Data)+len(b.Label)
	dims := 0
	for _, t := range b.Data {
		dims += len(t.Shape)
	}
	for _, t := range b.Label {
		dims += len(t.Shape)
	}
	parts := make([]Batch, k)
	views := make([]Tensor, k*nt)
	shapes := make([]int, k*dims)
	out := make([]*Batch, k)
	firstPad := b.Len() - b.Padded
	for i := range parts {
		lo, hi := bounds[i], bounds[i+1]
		v := views[i*nt : (i+1)*nt : (i+1)*nt]
		for j, t := range append(b.Data[:nd:nd], b.Label...) {
			v[j] = t.Rows(lo, hi, shapes[:len(t.Shape):len(t.Shape)])
			shapes = shapes[len(t.Shape):]
		}
		parts[i] = Batch{Data: v[:nd:nd], Label: v[nd:], Padded: max(0, hi-max(lo, firstPad))}
		out[i] = &parts[i]
	}
	return out
}
