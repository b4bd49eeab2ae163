package webdataset_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/sample"
)

func TestNPYTypes(t *testing.T) {
	f8 := make([]byte, 16)
	binary.LittleEndian.PutUint64(f8, math.Float64bits(1.5))
	binary.LittleEndian.PutUint64(f8[8:], math.Float64bits(-2))
	i4 := make([]byte, 8)
	binary.LittleEndian.PutUint32(i4, uint32(7))
	binary.LittleEndian.PutUint32(i4[4:], uint32(0xffffffff))
	i8 := make([]byte, 16)
	binary.LittleEndian.PutUint64(i8, 1<<40)
	binary.LittleEndian.PutUint64(i8[8:], math.MaxUint64)

	check := func(name string, b []byte, dt sample.DType, shape []int) webdataset.Array {
		t.Helper()
		a, err := webdataset.NPY(b)
		if err != nil || a.DType != dt || !slices.Equal(a.Shape, shape) {
			t.Fatalf("%s: NPY = %v %v, %v", name, a.DType, a.Shape, err)
		}
		return a
	}
	a := check("f4", npyBytes("<f4", []int{1, 2}, float32Bytes(1, 2)), sample.Float32, []int{1, 2})
	if d, err := webdataset.Dense[float32](a); err != nil || !slices.Equal(d.Data, []float32{1, 2}) || !slices.Equal(d.Shape, []int{1, 2}) {
		t.Fatalf("f4: %v, %v", d, err)
	}
	if _, err := webdataset.Dense[float64](a); err == nil {
		t.Fatal("Dense[float64] of a float32 array succeeded")
	}
	a = check("f8", npyBytes("<f8", []int{2}, f8), sample.Float64, []int{2})
	if d, _ := webdataset.Dense[float64](a); !slices.Equal(d.Data, []float64{1.5, -2}) {
		t.Fatalf("f8: %v", d.Data)
	}
	a = check("i4", npyBytes("<i4", []int{2, 1}, i4), sample.Int32, []int{2, 1})
	if d, _ := webdataset.Dense[int32](a); !slices.Equal(d.Data, []int32{7, -1}) {
		t.Fatalf("i4: %v", d.Data)
	}
	a = check("i8", npyBytes("<i8", []int{2}, i8), sample.Int64, []int{2})
	if d, _ := webdataset.Dense[int64](a); !slices.Equal(d.Data, []int64{1 << 40, -1}) {
		t.Fatalf("i8: %v", d.Data)
	}
	a = check("u1", npyBytes("|u1", []int{2, 0, 3}, nil), sample.Uint8, []int{2, 0, 3})
	if d, _ := webdataset.Dense[uint8](a); len(d.Data) != 0 {
		t.Fatalf("u1: %v", d.Data)
	}
	check("scalar", npyBytes("|u1", nil, []byte{9}), sample.Uint8, []int{})

	// Version 2: a 4-byte header length.
	v1 := npyBytes("<f4", []int{2}, float32Bytes(3, 4))
	hlen := int(binary.LittleEndian.Uint16(v1[8:]))
	v2 := append([]byte("\x93NUMPY\x02\x00"), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(v2[8:], uint32(hlen))
	v2 = append(v2, v1[10:]...)
	check("v2", v2, sample.Float32, []int{2})
	// Double quotes and no trailing comma.
	check("quotes", withHeader(`{"descr": "<i4", "shape": (1,), "fortran_order": False}`, i4[:4]), sample.Int32, []int{1})
}

// withHeader builds a version 1 .npy file with header h as it is.
func withHeader(h string, data []byte) []byte {
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(h)))
	return append(append(b, h...), data...)
}

func TestNPYBad(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "magic"},
		{"magic", []byte("\x93NUMPX\x01\x00\x00\x00"), "magic"},
		{"version", []byte("\x93NUMPY\x04\x00\x00\x00"), "version"},
		{"long header", []byte("\x93NUMPY\x01\x00\xff\xff{}"), "header length"},
		{"v2 long header", []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff{}"), "header length"},
		{"not a dict", withHeader("[1]", nil), "dictionary"},
		{"dtype", withHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", make([]byte, 4)), "dtype"},
		{"object dtype", withHeader("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", make([]byte, 8)), "dtype"},
		{"fortran", withHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", make([]byte, 4)), "Fortran"},
		{"missing key", withHeader("{'descr': '<f4', 'shape': (1,), }", make([]byte, 4)), "lacks"},
		{"unknown key", withHeader("{'descr': '<f4', 'x': 1}", nil), "unknown key"},
		{"negative", withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", nil), "dimension"},
		{"short data", npyBytes("<f4", []int{3}, float32Bytes(1, 2)), "data bytes"},
		{"long data", npyBytes("<f4", []int{1}, float32Bytes(1, 2)), "data bytes"},
		{"huge shape", npyBytes("<f8", []int{1 << 40, 1 << 40, 1 << 40}, nil), "shape [1099511627776 1099511627776 1099511627776] of float64 is too large"},
		{"overflow by the element size", npyBytes("<f8", []int{1 << 61}, nil), "too large"},
		{"many dims", withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': ("+strings.Repeat("1,", 40)+"), }", nil), "dimensions"},
		{"unterminated", withHeader("{'descr: ", nil), "unterminated"},
	} {
		_, err := webdataset.NPY(tc.b)
		var ne *tensorfeed.Error
		if !errors.As(err, &ne) || !errors.Is(err, tensorfeed.ErrBadData) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a *tensorfeed.Error about %q", tc.name, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "-1") {
			t.Errorf("%s: error %v speaks of a negative size", tc.name, err)
		}
		if ne.Offset < 0 || ne.Offset > int64(len(tc.b)) {
			t.Errorf("%s: offset %d outside the %d bytes", tc.name, ne.Offset, len(tc.b))
		}
	}
}

// A shape whose dimensions overflow int64 together is too large, unless
// one of them is 0: then the array is empty, as NumPy makes it.
func TestNPYShapeOverflow(t *testing.T) {
	b := npyBytes("<f4", []int{1 << 40, 1 << 40}, nil)
	_, err := webdataset.NPY(b)
	var ne *tensorfeed.Error
	if !errors.As(err, &ne) || !strings.Contains(ne.Err.Error(), "too large") {
		t.Fatalf("error %v, want a shape too large", err)
	}
	if at := bytes.Index(b, []byte("(1099511627776")); ne.Offset != int64(at) {
		t.Errorf("error at offset %d, want %d where the shape starts", ne.Offset, at)
	}
	a, err := webdataset.NPY(npyBytes("<f4", []int{1 << 40, 1 << 40, 0}, nil))
	if err != nil || len(a.Data) != 0 || len(a.Shape) != 3 {
		t.Fatalf("empty array of a huge shape: %+v, %v", a, err)
	}
}
