// Package sample holds the value types samples are made of: dense tensors
// with a shape, decoded images, and the element types they use.
package sample

import "fmt"

// Number is the set of element types a tensor can hold.
type Number interface {
	~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// DType names a tensor's element type, for schemas that are known before
// the data (MXNet's provide_data / provide_label).
type DType uint8

// The element types tensorfeed reads and writes.
const (
	Uint8 DType = iota + 1
	Int8
	Int16
	Int32
	Int64
	Float32
	Float64
)

var dtypeNames = [...]string{"invalid", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"}
var dtypeSizes = [...]int{0, 1, 1, 2, 4, 8, 4, 8}

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", d)
}

// Size returns the size of one element in bytes (0 for an invalid DType).
func (d DType) Size() int {
	if int(d) < len(dtypeSizes) {
		return dtypeSizes[d]
	}
	return 0
}

// DTypeOf returns the DType of E.
func DTypeOf[E Number]() DType {
	var e E
	switch any(e).(type) {
	case uint8:
		return Uint8
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case float32:
		return Float32
	case float64:
		return Float64
	}
	return 0
}

// Elems returns the number of elements of a tensor of the given shape: the
// product of its dimensions (1 for a scalar, whose shape is empty).
func Elems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Dense is a tensor: flat, row-major data with a shape.
type Dense[E Number] struct {
	Shape []int
	Data  []E
}

// NewDense returns a tensor of the given shape. When data is nil it allocates
// zeroed storage; otherwise data is used as the backing store, not copied,
// and NewDense panics when its length does not match the shape (a
// programmer's error, as in gonum's mat.NewDense).
func NewDense[E Number](shape []int, data []E) Dense[E] {
	n := Elems(shape)
	if data == nil {
		data = make([]E, n)
	} else if len(data) != n {
		panic(fmt.Sprintf("sample: NewDense: %d elements for shape %v (want %d)", len(data), shape, n))
	}
	return Dense[E]{Shape: shape, Data: data}
}

// Image is a decoded image: Height rows of Width pixels, each of Channels
// interleaved uint8 values (HWC layout: 1 = gray, 3 = RGB, 4 = RGBA).
type Image struct {
	Height, Width, Channels int
	Pix                     []uint8
}

// NewImage returns a zeroed image of the given size.
func NewImage(height, width, channels int) Image {
	return Image{Height: height, Width: width, Channels: channels, Pix: make([]uint8, height*width*channels)}
}

// At returns the value of channel c of the pixel in row y, column x.
func (m Image) At(y, x, c int) uint8 { return m.Pix[(y*m.Width+x)*m.Channels+c] }

// Shape returns the image's shape in HWC order.
func (m Image) Shape() []int { return []int{m.Height, m.Width, m.Channels} }
