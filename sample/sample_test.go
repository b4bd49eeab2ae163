package sample_test

import (
	"fmt"
	"testing"

	"github.com/tensorfeed/tensorfeed/sample"
)

func TestDTypes(t *testing.T) {
	cases := []struct {
		got  sample.DType
		want sample.DType
		name string
		size int
	}{
		{sample.DTypeOf[uint8](), sample.Uint8, "uint8", 1},
		{sample.DTypeOf[int8](), sample.Int8, "int8", 1},
		{sample.DTypeOf[int16](), sample.Int16, "int16", 2},
		{sample.DTypeOf[int32](), sample.Int32, "int32", 4},
		{sample.DTypeOf[int64](), sample.Int64, "int64", 8},
		{sample.DTypeOf[float32](), sample.Float32, "float32", 4},
		{sample.DTypeOf[float64](), sample.Float64, "float64", 8},
	}
	for _, c := range cases {
		if c.got != c.want || c.got.String() != c.name || c.got.Size() != c.size {
			t.Errorf("DTypeOf = %v (%q, %d bytes), want %v (%q, %d bytes)", c.got, c.got.String(), c.got.Size(), c.want, c.name, c.size)
		}
	}
	if s := sample.DType(200).String(); s != "DType(200)" {
		t.Errorf("unknown DType prints %q", s)
	}
	if sample.DType(200).Size() != 0 {
		t.Error("unknown DType has a size")
	}
}

func TestElems(t *testing.T) {
	for _, c := range []struct {
		shape []int
		want  int
	}{{nil, 1}, {[]int{3}, 3}, {[]int{2, 3, 4}, 24}, {[]int{5, 0}, 0}} {
		if got := sample.Elems(c.shape); got != c.want {
			t.Errorf("Elems(%v) = %d, want %d", c.shape, got, c.want)
		}
	}
}

func TestNewDense(t *testing.T) {
	d := sample.NewDense[float32]([]int{2, 3}, nil)
	if len(d.Data) != 6 {
		t.Fatalf("allocated %d elements, want 6", len(d.Data))
	}
	if d.Shape[0] != 2 {
		t.Errorf("Shape[0] = %d, want 2", d.Shape[0])
	}
	backing := []int32{1, 2, 3, 4}
	e := sample.NewDense([]int{2, 2}, backing)
	backing[0] = 9
	if e.Data[0] != 9 {
		t.Error("NewDense copied the caller's slice; it must use it as backing store")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewDense with a wrong length did not panic")
		}
	}()
	sample.NewDense([]int{2, 2}, []int32{1, 2, 3})
}

func TestImage(t *testing.T) {
	m := sample.NewImage(2, 3, 3)
	m.Pix[(1*3+2)*3+1] = 7
	if m.At(1, 2, 1) != 7 {
		t.Errorf("At(1, 2, 1) = %d, want 7", m.At(1, 2, 1))
	}
	if s := m.Shape(); len(s) != 3 || s[0] != 2 || s[1] != 3 || s[2] != 3 {
		t.Errorf("Shape = %v, want [2 3 3]", s)
	}
}

func ExampleNewDense() {
	d := sample.NewDense([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	fmt.Println(d.Shape, sample.DTypeOf[float32](), d.Data[1*3+2])
	// Output: [2 3] float32 6
}

func ExampleNewDense_frames() {
	frames := sample.NewDense[float32]([]int{5, 40}, nil) // 5 frames of 40 features
	for i := range frames.Shape[0] {
		row := frames.Data[i*40 : (i+1)*40]
		row[0] = float32(i)
	}
	fmt.Println(frames.Shape[0], frames.Data[4*40])
	// Output: 5 4
}
