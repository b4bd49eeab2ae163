package webdataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	errcause "github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/sample"
)

// npyError returns the error about a bad NumPy .npy array: a
// *tensorfeed.Error whose Offset is the byte offset in the .npy bytes where
// the problem is. It wraps ErrFormat (and so tensorfeed.ErrBadData).
func npyError(at int, msg string) error {
	return &tensorfeed.Error{Offset: int64(at), Record: -1, Err: errcause.New(errNPY, nil, msg)}
}

// errNPY is the sentinel of an .npy array's errors.
var errNPY = errcause.Sentinel("npy: bad array", ErrFormat)

// Array is a NumPy array read from .npy bytes: its element type, its shape
// (C order: row-major) and its little-endian data.
type Array struct {
	DType sample.DType
	Shape []int
	// Data holds the elements, little-endian, exactly
	// sample.Elems(Shape) * DType.Size() bytes. It shares the memory of
	// the bytes given to NPY.
	Data []byte
}

var npyMagic = []byte("\x93NUMPY")

var npyDTypes = map[string]sample.DType{
	"<f4": sample.Float32, "<f8": sample.Float64,
	"<i4": sample.Int32, "<i8": sample.Int64,
	"|u1": sample.Uint8, "<u1": sample.Uint8,
}

// maxNPYDims is the largest number of dimensions NPY accepts.
const maxNPYDims = 32

// NPY parses a NumPy .npy file (format versions 1, 2 and 3) held in b. It
// accepts the element types '<f4', '<f8', '<i4', '<i8' and '|u1' in C
// order, with at most 32 dimensions. Nothing is allocated from what the header claims: the header must
// fit in b and the data must be exactly the bytes that follow it, so a
// bad or lying header is an [*tensorfeed.Error] saying where, never a large
// allocation.
func NPY(b []byte) (Array, error) {
	if len(b) < 10 || !bytes.Equal(b[:6], npyMagic) {
		return Array{}, npyError(0, "not a .npy array: no \\x93NUMPY magic")
	}
	var hlen, start int
	switch b[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return Array{}, npyError(8, "truncated header length")
		}
		n := binary.LittleEndian.Uint32(b[8:12])
		if int64(n) > int64(len(b)-12) {
			return Array{}, npyError(8, fmt.Sprintf("header length %d, only %d bytes follow", n, len(b)-12))
		}
		hlen, start = int(n), 12
	default:
		return Array{}, npyError(6, fmt.Sprintf("unsupported version %d.%d", b[6], b[7]))
	}
	if hlen > len(b)-start {
		return Array{}, npyError(8, fmt.Sprintf("header length %d, only %d bytes follow", hlen, len(b)-start))
	}
	p := &npyParser{b: b[:start+hlen], i: start}
	a, err := p.header()
	if err != nil {
		return Array{}, err
	}
	data := b[start+hlen:]
	want, ok := dataBytes(a.Shape, a.DType.Size())
	if !ok {
		return Array{}, npyError(p.shapeAt, fmt.Sprintf("shape %v of %s is too large: its data would be more than %d bytes", a.Shape, a.DType, int64(math.MaxInt64)))
	}
	if want != int64(len(data)) {
		return Array{}, npyError(start+hlen, fmt.Sprintf("shape %v of %s needs %d data bytes, %d follow the header", a.Shape, a.DType, want, len(data)))
	}
	a.Data = data
	return a, nil
}

// dataBytes returns the bytes of the data of an array of shape whose
// elements take size bytes each, or false when that overflows int64. A
// dimension of 0 makes an empty array, whatever the others.
func dataBytes(shape []int, size int) (int64, bool) {
	if slices.Contains(shape, 0) {
		return 0, true
	}
	n := int64(size)
	for _, d := range shape {
		if n > math.MaxInt64/int64(d) {
			return 0, false
		}
		n *= int64(d)
	}
	return n, true
}

// Dense returns the elements of a as a tensor of element type E, a copy
// that does not share a's memory. E must be a's element type: float32
// for '<f4', int64 for '<i8', ...
func Dense[E sample.Number](a Array) (sample.Dense[E], error) {
	if want := sample.DTypeOf[E](); want != a.DType {
		return sample.Dense[E]{}, fmt.Errorf("webdataset: Dense[%s] of a %s array", want, a.DType)
	}
	n := len(a.Data) / a.DType.Size()
	out := make([]E, n)
	switch dst := any(out).(type) {
	case []uint8:
		copy(dst, a.Data)
	case []int32:
		for i := range dst {
			dst[i] = int32(binary.LittleEndian.Uint32(a.Data[4*i:]))
		}
	case []int64:
		for i := range dst {
			dst[i] = int64(binary.LittleEndian.Uint64(a.Data[8*i:]))
		}
	case []float32:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
		}
	case []float64:
		for i := range dst {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*i:]))
		}
	}
	return sample.NewDense(append([]int(nil), a.Shape...), out), nil
}

// npyParser reads the header dictionary, a Python literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
type npyParser struct {
	b       []byte
	i       int
	shapeAt int // where the shape's tuple starts
}

func (p *npyParser) fail(msg string) error { return npyError(p.i, msg) }

func (p *npyParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\n' || p.b[p.i] == '\t' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *npyParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *npyParser) str() (string, error) {
	p.space()
	if p.i >= len(p.b) || (p.b[p.i] != '\'' && p.b[p.i] != '"') {
		return "", p.fail("want a quoted string")
	}
	q := p.b[p.i]
	end := bytes.IndexByte(p.b[p.i+1:], q)
	if end < 0 {
		return "", p.fail("unterminated string")
	}
	s := string(p.b[p.i+1 : p.i+1+end])
	p.i += end + 2
	return s, nil
}

func (p *npyParser) word() string {
	p.space()
	j := p.i
	for p.i < len(p.b) && (p.b[p.i] >= 'a' && p.b[p.i] <= 'z' || p.b[p.i] >= 'A' && p.b[p.i] <= 'Z' || p.b[p.i] >= '0' && p.b[p.i] <= '9') {
		p.i++
	}
	return string(p.b[j:p.i])
}

func (p *npyParser) header() (Array, error) {
	var a Array
	var haveDescr, haveOrder, haveShape bool
	if !p.eat('{') {
		return a, p.fail("header is not a dictionary")
	}
	for !p.eat('}') {
		at := p.i
		key, err := p.str()
		if err != nil {
			return a, err
		}
		if !p.eat(':') {
			return a, p.fail("want ':'")
		}
		switch key {
		case "descr":
			at = p.i
			d, err := p.str()
			if err != nil {
				return a, err
			}
			dt, ok := npyDTypes[d]
			if !ok {
				return a, npyError(at, fmt.Sprintf("unsupported dtype %q (want '<f4', '<f8', '<i4', '<i8' or '|u1')", d))
			}
			a.DType, haveDescr = dt, true
		case "fortran_order":
			at = p.i
			switch p.word() {
			case "False":
			case "True":
				return a, npyError(at, "Fortran order is not supported (want C order)")
			default:
				return a, npyError(at, "fortran_order is not True or False")
			}
			haveOrder = true
		case "shape":
			p.space()
			p.shapeAt = p.i
			shape, err := p.shape()
			if err != nil {
				return a, err
			}
			a.Shape, haveShape = shape, true
		default:
			return a, npyError(at, fmt.Sprintf("unknown key %q", key))
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return a, p.fail("want ',' or '}'")
			}
			break
		}
	}
	if !haveDescr || !haveOrder || !haveShape {
		return a, p.fail("header lacks descr, fortran_order or shape")
	}
	return a, nil
}

func (p *npyParser) shape() ([]int, error) {
	if !p.eat('(') {
		return nil, p.fail("shape is not a tuple")
	}
	shape := []int{}
	for !p.eat(')') {
		if len(shape) == maxNPYDims {
			return nil, p.fail(fmt.Sprintf("more than %d dimensions", maxNPYDims))
		}
		at := p.i
		w := p.word()
		if w == "" {
			return nil, p.fail("want a dimension")
		}
		d, err := strconv.Atoi(strings.TrimSuffix(w, "L"))
		if err != nil || d < 0 {
			return nil, npyError(at, fmt.Sprintf("bad dimension %q", w))
		}
		shape = append(shape, d)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, p.fail("want ',' or ')'")
			}
			break
		}
	}
	return shape, nil
}
