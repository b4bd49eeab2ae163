package array

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// rows is the random-access view of an array's samples.
type rows[E sink.Elem] struct {
	data []E
	e, n int
}

func (r rows[E]) Len() int { return r.n }

// Get returns sample i as a view of the array's memory, capped so that an
// append cannot write over the next sample.
func (r rows[E]) Get(i int) ([]E, error) {
	if uint(i) >= uint(r.n) {
		return nil, source.IndexError(i, r.n)
	}
	return r.data[i*r.e : (i+1)*r.e : (i+1)*r.e], nil
}

// Rows returns the samples of a as a random-access dataset: sample i is
// the flat row i, a view of the array's memory (not a copy) that the
// caller must not modify. It reads the array through the reader of
// source.ReadIndexed, in order or shuffled by index. E must be the
// array's element type (float32 for Float32 and Float32Rows, int32, int64
// or uint8); Rows panics otherwise.
func Rows[E sink.Elem](a Array) source.Indexed[[]E] {
	var data []E
	switch d := any(&data).(type) {
	case *[]float32:
		*d = a.f32
	case *[]int32:
		*d = a.i32
	case *[]int64:
		*d = a.i64
	case *[]uint8:
		*d = a.u8
	}
	if data == nil && a.n > 0 {
		panic(fmt.Sprintf("array: Rows[%T] of array %q of %v", *new(E), a.name, a.dtype))
	}
	return rows[E]{data: data, e: sample.Elems(a.shape), n: a.n}
}
