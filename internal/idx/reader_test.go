package idx_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
	"github.com/tensorfeed/tensorfeed/sample"
)

func TestDecodeElementTypes(t *testing.T) {
	be := binary.BigEndian
	var f32, f64, i16, i32 []byte
	for _, v := range []float32{1.5, -2, float32(math.Inf(1)), 0.25, 3, -0.5} {
		f32 = be.AppendUint32(f32, math.Float32bits(v))
	}
	for _, v := range []float64{1.5, -2, 1e300, 0.25, 3, -0.5} {
		f64 = be.AppendUint64(f64, math.Float64bits(v))
	}
	for _, v := range []int16{1, -2, 300, -32768, 32767, 0} {
		i16 = be.AppendUint16(i16, uint16(v))
	}
	for _, v := range []int32{1, -2, 70000, math.MinInt32, math.MaxInt32, 0} {
		i32 = be.AppendUint32(i32, uint32(v))
	}
	tests := []struct {
		name  string
		typ   byte
		dtype sample.DType
		data  []byte
		want  []float64
	}{
		{"ubyte", 0x08, sample.Uint8, []byte{0, 1, 2, 128, 254, 255}, []float64{0, 1, 2, 128, 254, 255}},
		{"int8", 0x09, sample.Int8, []byte{0, 1, 0x7f, 0x80, 0xfe, 0xff}, []float64{0, 1, 127, -128, -2, -1}},
		{"int16", 0x0B, sample.Int16, i16, []float64{1, -2, 300, -32768, 32767, 0}},
		{"int32", 0x0C, sample.Int32, i32, []float64{1, -2, 70000, math.MinInt32, math.MaxInt32, 0}},
		{"float32", 0x0D, sample.Float32, f32, []float64{1.5, -2, math.Inf(1), 0.25, 3, -0.5}},
		{"float64", 0x0E, sample.Float64, f64, []float64{1.5, -2, 1e300, 0.25, 3, -0.5}},
	}
	for _, tt := range tests {
		for _, zipped := range []bool{false, true} {
			file := badinput.IDXFile(tt.typ, []uint32{3, 2}, tt.data)
			if zipped {
				file = badinput.Gzip(file)
			}
			x, err := idx.Decode(bytes.NewReader(file), tt.name)
			if err != nil {
				t.Fatalf("%s gzip=%v: %v", tt.name, zipped, err)
			}
			if x.DType != tt.dtype || !slices.Equal(x.Dims, []int{3, 2}) || x.Elems() != 6 {
				t.Errorf("%s: header %v %v", tt.name, x.DType, x.Dims)
			}
			if x.Magic() != uint32(tt.typ)<<8|2 {
				t.Errorf("%s: magic %#x", tt.name, x.Magic())
			}
			got := idx.Values[float64](x)
			if !slices.Equal(got.Shape, []int{3, 2}) || !slices.Equal(got.Data, tt.want) {
				t.Errorf("%s gzip=%v: values %v %v, want %v", tt.name, zipped, got.Shape, got.Data, tt.want)
			}
		}
	}
}

func TestReaderRecords(t *testing.T) {
	// 4 records of 2x3 int16.
	var data []byte
	for i := range 24 {
		data = binary.BigEndian.AppendUint16(data, uint16(int16(i-12)))
	}
	x, err := idx.NewReader(bytes.NewReader(badinput.IDXFile(0x0B, []uint32{4, 2, 3}, data)), "t")
	if err != nil {
		t.Fatal(err)
	}
	h := x.Header()
	if h.Records() != 4 || h.RecordElems() != 6 || x.RecordBytes() != 12 || h.Size() != 16 || x.Gzipped() {
		t.Fatalf("header %+v records %d elems %d bytes %d", h, h.Records(), h.RecordElems(), x.RecordBytes())
	}
	if err := x.Skip(1); err != nil {
		t.Fatal(err)
	}
	dst := make([]float32, 6)
	var got []float32
	for {
		err := idx.Read(x, dst)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, dst...)
	}
	want := make([]float32, 18)
	for i := range want {
		want[i] = float32(i + 6 - 12)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if err := idx.Read(x, dst); err != io.EOF {
		t.Errorf("after the end: %v, want io.EOF", err)
	}
}

func TestScalarAndEmpty(t *testing.T) {
	x, err := idx.Decode(bytes.NewReader(badinput.IDXFile(0x0C, nil, []byte{0, 0, 1, 0})), "scalar")
	if err != nil {
		t.Fatal(err)
	}
	if v := idx.Values[int32](x); len(v.Shape) != 0 || !slices.Equal(v.Data, []int32{256}) {
		t.Errorf("scalar: %v", v)
	}
	x, err = idx.Decode(bytes.NewReader(badinput.IDXFile(0x08, []uint32{0, 28, 28}, nil)), "zero")
	if err != nil {
		t.Fatal(err)
	}
	if x.Records() != 0 || len(x.Raw) != 0 {
		t.Errorf("zero records: %+v", x.Header)
	}
}

func TestErrors(t *testing.T) {
	good := badinput.IDXFile(0x08, []uint32{3, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	zipped := badinput.Gzip(good)
	tests := []struct {
		name   string
		file   []byte
		offset int64
		msg    string
		cause  error
	}{
		{"empty", nil, 0, "empty file", nil},
		{"short magic", []byte{0, 0, 8}, 3, "ends in the header", io.ErrUnexpectedEOF},
		{"bad magic", []byte{0x12, 0x34, 8, 1, 0, 0, 0, 0}, 0, "bad magic", nil},
		{"text file", []byte("hello world"), 0, "bad magic", nil},
		{"unknown type", badinput.IDXFile(0x0A, []uint32{1}, []byte{0}), 2, "unknown element type 0x0a", nil},
		{"short dims", good[:10], 10, "size of dimension 1", io.ErrUnexpectedEOF},
		{"truncated data", good[:len(good)-3], int64(len(good) - 3), "record 2 of 3", io.ErrUnexpectedEOF},
		{"trailing data", append(slices.Clone(good), 0, 0), int64(len(good)), "after the last record", nil},
		{"huge dims", badinput.IDXFile(0x0E, []uint32{1 << 31, 1 << 31}, nil), 8, "more than", nil},
		{"gzip cut", zipped[:len(zipped)-10], -1, "gzip", io.ErrUnexpectedEOF},
		{"gzip header only", zipped[:5], 0, "bad gzip header", nil},
		{"gzip wrong checksum", append(slices.Clone(zipped[:len(zipped)-8]), 1, 2, 3, 4, 28, 0, 0, 0), int64(len(good)), "end of the file", gzip.ErrChecksum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := idx.Decode(bytes.NewReader(tt.file), "f.idx")
			if !errors.Is(err, idx.ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			var fe *tensorfeed.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *tensorfeed.Error", err)
			}
			if fe.Path != "f.idx" || (tt.offset >= 0 && fe.Offset != tt.offset) {
				t.Errorf("at %s offset %d, want offset %d: %v", fe.Path, fe.Offset, tt.offset, err)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "f.idx") {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("error %v does not wrap %v", err, tt.cause)
			}
		})
	}
}

func TestErrorIsSticky(t *testing.T) {
	good := badinput.IDXFile(0x08, []uint32{3, 2}, []byte{1, 2, 3, 4, 5})
	x, err := idx.NewReader(bytes.NewReader(good), "f")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if err := x.ReadRaw(buf); err != nil {
		t.Fatal(err)
	}
	if err := x.ReadRaw(buf); err != nil {
		t.Fatal(err)
	}
	err1 := x.ReadRaw(buf)
	if !errors.Is(err1, io.ErrUnexpectedEOF) {
		t.Fatalf("third record: %v", err1)
	}
	if err2 := x.Skip(1); err2 != err1 {
		t.Errorf("Skip after an error: %v", err2)
	}
	if x.Offset() != 17 {
		t.Errorf("offset %d, want 17", x.Offset())
	}
}

func TestReadFileRealFiles(t *testing.T) {
	for _, tt := range []struct {
		name string
		dims []int
		sum  int
	}{
		{"t10k-images-idx3-ubyte", []int{10000, 28, 28}, 264923200},
		{"t10k-labels-idx1-ubyte", []int{10000}, 44434},
	} {
		x, err := idx.ReadFile(gz(tt.name))
		if err != nil {
			t.Fatal(err)
		}
		if x.DType != sample.Uint8 || !slices.Equal(x.Dims, tt.dims) {
			t.Errorf("%s: %v %v", tt.name, x.DType, x.Dims)
		}
		sum := 0
		for _, b := range x.Raw {
			sum += int(b)
		}
		if sum != tt.sum {
			t.Errorf("%s: sum %d, want %d", tt.name, sum, tt.sum)
		}
		raw := gunzipBytes(t, tt.name)
		if !bytes.Equal(raw[x.Size():], x.Raw) {
			t.Errorf("%s: data differs from the gunzipped file", tt.name)
		}
	}
	if _, err := idx.ReadFile("no/such/file"); err == nil {
		t.Error("no error for a missing file")
	}
}

func TestHeaderMagic(t *testing.T) {
	for _, tt := range []struct {
		h    idx.Header
		want uint32
	}{
		{idx.Header{DType: sample.Uint8, Dims: []int{60000, 28, 28}}, idx.ImagesMagic},
		{idx.Header{DType: sample.Uint8, Dims: []int{60000}}, idx.LabelsMagic},
		{idx.Header{DType: sample.Float64, Dims: []int{1, 2, 3, 4}}, 0x0E04},
	} {
		if got := tt.h.Magic(); got != tt.want {
			t.Errorf("%+v: magic %#x, want %#x", tt.h, got, tt.want)
		}
	}
}
