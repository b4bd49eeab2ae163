package array

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
)

// Array is one named array: N samples of a fixed shape, stored flat and
// row-major (sample i is elements [i*E, (i+1)*E) where E is the product of
// the shape). Make one with Float32, Int32, Int64, Uint8 or Float32Rows.
// The Array keeps the caller's slice, which must not change while passes
// run.
type Array struct {
	name  string
	shape []int
	dtype sample.DType
	n     int
	f32   []float32
	i32   []int32
	i64   []int64
	u8    []uint8
}

func newArray(fn, name string, shape []int, dt sample.DType, length int) Array {
	if name == "" {
		panic(fmt.Sprintf("array: %s: empty name", fn))
	}
	for _, d := range shape {
		if d < 1 {
			panic(fmt.Sprintf("array: %s %q: bad shape %v", fn, name, shape))
		}
	}
	e := sample.Elems(shape)
	if length%e != 0 {
		panic(fmt.Sprintf("array: %s %q: %d elements is not a whole number of samples of shape %v", fn, name, length, shape))
	}
	return Array{name: name, shape: append([]int{}, shape...), dtype: dt, n: length / e}
}

// Float32 returns an array named name of samples of the given shape (nil
// or empty for one scalar per sample) backed by data, which is not copied.
// It panics when len(data) is not a multiple of the shape's size.
func Float32(name string, shape []int, data []float32) Array {
	a := newArray("Float32", name, shape, sample.Float32, len(data))
	a.f32 = data
	return a
}

// Int32 is Float32 for int32 data.
func Int32(name string, shape []int, data []int32) Array {
	a := newArray("Int32", name, shape, sample.Int32, len(data))
	a.i32 = data
	return a
}

// Int64 is Float32 for int64 data.
func Int64(name string, shape []int, data []int64) Array {
	a := newArray("Int64", name, shape, sample.Int64, len(data))
	a.i64 = data
	return a
}

// Uint8 is Float32 for uint8 data.
func Uint8(name string, shape []int, data []uint8) Array {
	a := newArray("Uint8", name, shape, sample.Uint8, len(data))
	a.u8 = data
	return a
}

// Float32Rows returns a float32 array with one sample per row, copied into
// one flat slice; the shape is [len(rows[0])]. It panics when the rows
// differ in length or there are none.
func Float32Rows(name string, rows [][]float32) Array {
	if len(rows) == 0 {
		panic(fmt.Sprintf("array: Float32Rows %q: no rows", name))
	}
	w := len(rows[0])
	flat := make([]float32, 0, len(rows)*w)
	for i, r := range rows {
		if len(r) != w {
			panic(fmt.Sprintf("array: Float32Rows %q: row %d has %d values, row 0 has %d", name, i, len(r), w))
		}
		flat = append(flat, r...)
	}
	return Float32(name, []int{w}, flat)
}

// Name returns the array's name.
func (a Array) Name() string { return a.name }

// Shape returns the shape of one sample.
func (a Array) Shape() []int { return append([]int{}, a.shape...) }

// Len returns the number of samples.
func (a Array) Len() int { return a.n }

// field returns the sink field that copies row i of a, or the padding row
// (every element pad) for the padding index -1. The sink checks every row's
// length against the shape, which holds by construction (newArray).
func (a Array) field(pad float64) sink.Field[int] {
	e := sample.Elems(a.shape)
	switch a.dtype {
	case sample.Float32:
		return sink.Slice(a.name, a.shape, rowGet(a.f32, e, float32(pad)))
	case sample.Int32:
		return sink.Slice(a.name, a.shape, rowGet(a.i32, e, int32(pad)))
	case sample.Int64:
		return sink.Slice(a.name, a.shape, rowGet(a.i64, e, int64(pad)))
	case sample.Uint8:
		return sink.Slice(a.name, a.shape, rowGet(a.u8, e, uint8(pad)))
	}
	panic("array: an Array not made by Float32, Int32, Int64, Uint8 or Float32Rows")
}

// rowGet returns the getter of row i of data (e elements per row), or of a
// row of pad for i = -1.
func rowGet[E sink.Elem](data []E, e int, pad E) func(int) []E {
	padRow := make([]E, e)
	for k := range padRow {
		padRow[k] = pad
	}
	return func(i int) []E {
		if i < 0 {
			return padRow
		}
		return data[i*e : (i+1)*e : (i+1)*e]
	}
}
