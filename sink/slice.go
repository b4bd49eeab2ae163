package sink

import (
	"fmt"
	"unsafe"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/sample"
)

// ErrSampleShape is wrapped by the error Assemble returns for a sample
// whose slice does not hold exactly the elements of its field's shape (a
// field made by Slice). It wraps tensorfeed.ErrBadData: the batch fits the
// sink, one of its samples does not.
var ErrSampleShape = fmt.Errorf("sink: sample does not fit its field: %w", tensorfeed.ErrBadData)

// Elem is the set of element types a sink's tensors hold.
type Elem interface {
	float32 | int32 | int64 | uint8 | int8
}

// Slice returns a field named name holding a tensor of the given
// per-sample shape (an empty shape is a scalar) whose element type is E:
// for every sample s of a batch, the sink copies get(s) into the sample's
// row. This is PaddlePaddle's dense slot fed from a sample member, checked
// as Paddle's FileReader checks every instance against its dims: a slice
// that does not hold exactly sample.Elems(shape) elements makes Assemble
// (and Tensorize) fail with an error that names the field, the row of the
// batch and both lengths, and wraps ErrSampleShape, never a truncated or
// zero-filled row.
//
// The sink copies: the tensor never shares memory with a sample, and the
// check and copy allocate nothing. A row is written whole, so a recycled
// row is not cleared first (as with Field.WritesAll). Prefer Slice to a
// Float32 fill that copies a slice by hand, which cannot be checked.
//
// Slice panics when name is empty, a dimension is below 1 or get is nil.
func Slice[T any, E Elem](name string, shape []int, get func(s T) []E) Field[T] {
	f := newField[T]("Slice", name, shape, sample.DTypeOf[E](), get == nil)
	e := f.elems
	f.write = func(samples []T, dst unsafe.Pointer, _ bool) (int, int) {
		return copyRows(unsafe.Slice((*E)(dst), len(samples)*e), e, samples, get)
	}
	f.writesAll = true
	return f
}

// copyRows copies get(samples[i]) into row i of dst, e elements per row.
// It stops at the first sample whose slice does not hold e elements and
// returns its index and length; row is -1 when every sample fit.
func copyRows[T any, E Elem](dst []E, e int, samples []T, get func(T) []E) (row, got int) {
	for i, s := range samples {
		v := get(s)
		if len(v) != e {
			return i, len(v)
		}
		copy(dst[i*e:(i+1)*e:(i+1)*e], v)
	}
	return -1, 0
}
