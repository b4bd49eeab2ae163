package sink

import (
	"fmt"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/internal/badrows"
	"github.com/tensorfeed/tensorfeed/sample"
)

// Field is one tensor a sink fills from every sample: its name, its shape
// per sample and how to write a sample into it. Make one with Float32,
// Int32, Int64, Uint8, Fill or Slice; the zero Field is not valid.
type Field[T any] struct {
	name      string
	shape     []int
	dtype     sample.DType
	elems     int
	writesAll bool
	// write writes the samples into their rows of dst, the first element
	// of the field's tensor (of its dtype), clearing each row first when
	// clearRows is set and the writer may leave elements unwritten. It
	// returns the row and length of the first sample that does not fit
	// (Slice, Of), or row -1. It is typed once, when the field is made, so
	// that a batch costs one call per field and none of it is reflective.
	write func(samples []T, dst unsafe.Pointer, clearRows bool) (row, got int)
	// try, set instead of write for a field made by Fill, writes every
	// sample it can and adds each row whose fill failed to bad (made when
	// nil), which it returns: no allocation while every fill succeeds.
	try tryFunc[T]
}

// Float32 returns a field named name holding a float32 tensor of the given
// per-sample shape (an empty shape is a scalar). For every sample s of a
// batch, fill(s, dst) writes s into dst, its row of the tensor: a slice of
// exactly sample.Elems(shape) elements, zeroed before the call (unless the
// field is marked WritesAll). dst has no spare capacity, so fill cannot
// grow the tensor or write into another row; appending to dst writes to a
// copy that the sink never sees.
//
// fill cannot fail, and the sink cannot see what it writes: a fill that
// copies a slice of the wrong length leaves a truncated or zero-filled row
// without an error. To copy a slice, use Slice, which checks its length;
// otherwise validate samples upstream (pipeline.MapErr) when their size may be
// wrong. A panic in fill unwinds through the caller, as with pipeline.Map.
//
// Float32 panics when name is empty, a dimension is below 1 or fill is
// nil.
func Float32[T any](name string, shape []int, fill func(s T, dst []float32)) Field[T] {
	return fillField("Float32", name, shape, fill)
}

// Int32 is Float32 for an int32 tensor.
func Int32[T any](name string, shape []int, fill func(s T, dst []int32)) Field[T] {
	return fillField("Int32", name, shape, fill)
}

// Int64 is Float32 for an int64 tensor.
func Int64[T any](name string, shape []int, fill func(s T, dst []int64)) Field[T] {
	return fillField("Int64", name, shape, fill)
}

// Uint8 is Float32 for a uint8 tensor.
func Uint8[T any](name string, shape []int, fill func(s T, dst []uint8)) Field[T] {
	return fillField("Uint8", name, shape, fill)
}

// Fill returns a field named name holding a tensor of element type E and
// the given per-sample shape whose fill may fail: the decode of an image
// straight into its row, which finds out that the bytes are not an image
// while writing. For every sample s of a batch, fill(s, dst) writes s into
// dst, its row, as for Float32 (zeroed first unless the field is marked
// WritesAll), and returns nil, or an error that names the sample's
// position (a *tensorfeed.Error with the file, record index and byte
// offset) and wraps tensorfeed.ErrBadData when the sample is bad data.
//
// Assemble then fails with an error naming the field and the row that
// wraps the fill's. pipeline.Tensorize ends the pass with the fill's error
// in the order of the samples, or, with a bad-record policy
// (pipeline.OnBad), drops the sample, counts and logs it, and closes up
// the batch's rows, so that the batches are those of data without it.
//
// Fill panics when name is empty, a dimension is below 1 or fill is nil.
func Fill[T any, E Elem](name string, shape []int, fill func(s T, dst []E) error) Field[T] {
	f := newField[T]("Fill", name, shape, sample.DTypeOf[E](), fill == nil)
	e := f.elems
	f.try = func(samples []T, dst unsafe.Pointer, clearRows bool, bad *badrows.Error) *badrows.Error {
		rows := unsafe.Slice((*E)(dst), len(samples)*e)
		for i, s := range samples {
			row := rows[i*e : (i+1)*e : (i+1)*e]
			if clearRows {
				clear(row)
			}
			if err := fill(s, row); err != nil {
				if bad == nil {
					bad = &badrows.Error{}
				}
				bad.Add(name, i, err)
			}
		}
		return bad
	}
	return f
}

// tryFunc fills the rows of samples into dst, the first of them, each
// cleared first with clearRows, and adds the rows whose fill failed to bad
// (a new one when bad is nil), numbered from the first of samples.
type tryFunc[T any] func(samples []T, dst unsafe.Pointer, clearRows bool, bad *badrows.Error) *badrows.Error

// fillField returns the field of Float32, Int32, Int64 and Uint8: fill
// writes each sample into its zeroed row.
func fillField[T any, E Elem](fn, name string, shape []int, fill func(T, []E)) Field[T] {
	f := newField[T](fn, name, shape, sample.DTypeOf[E](), fill == nil)
	e := f.elems
	f.write = func(samples []T, dst unsafe.Pointer, clearRows bool) (int, int) {
		fillRows(unsafe.Slice((*E)(dst), len(samples)*e), e, samples, fill, clearRows)
		return -1, 0
	}
	return f
}

func newField[T any](fn, name string, shape []int, dt sample.DType, nilFill bool) Field[T] {
	if name == "" {
		panic(fmt.Sprintf("sink: %s: empty name", fn))
	}
	if nilFill {
		panic(fmt.Sprintf("sink: %s %q: nil fill function", fn, name))
	}
	for _, d := range shape {
		if d < 1 {
			panic(fmt.Sprintf("sink: %s %q: bad shape %v", fn, name, shape))
		}
	}
	return Field[T]{name: name, shape: append([]int{}, shape...), dtype: dt, elems: sample.Elems(shape)}
}

// WritesAll returns a copy of f that promises its fill sets every element
// of dst, as a fill that normalises a whole image or copies a whole vector
// does. The sink then skips clearing a row before the fill when the row's
// memory is recycled (tensor.Batch.Release), which saves writing each batch
// twice; new memory is zero anyway.
//
// Leave a fill that writes only some elements unmarked (a one-hot label
// sets one element of its row): marked, it would find the values of an
// earlier batch in the elements it skips.
func (f Field[T]) WritesAll() Field[T] {
	f.writesAll = true
	return f
}
