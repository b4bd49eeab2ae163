package sink_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// pixels is a sample as a dataset of images in memory gives it: the pixels
// by reference, the label by value, an untagged index.
type pixels struct {
	Image *[4]uint8 `tensor:"image,float32"`
	Label uint8     `tensor:"label,label,int32"`
	Index int
}

func pixelSet(n int) []pixels {
	out := make([]pixels, n)
	for i := range out {
		out[i] = pixels{Image: &[4]uint8{0, uint8(i), 128, 255}, Label: uint8(i % 10), Index: i}
	}
	return out
}

func assemble[T any](t *testing.T, s *sink.Sink[T], samples []T) *tensor.Batch {
	t.Helper()
	b, err := s.Assemble(batch.Batch[T]{Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOfDigits(t *testing.T) {
	s := sink.Of[pixels](3)
	want := []tensor.Desc{{Name: "image", Shape: []int{3, 4}, DType: sample.Float32}}
	if got := s.ProvideData(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ProvideData = %v, want %v", got, want)
	}
	want = []tensor.Desc{{Name: "label", Shape: []int{3}, DType: sample.Int32}}
	if got := s.ProvideLabel(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ProvideLabel = %v, want %v", got, want)
	}
	b := assemble(t, s, pixelSet(3))
	img, _ := b.Get("image")
	if got, want := img.F32, []float32{0, 0, 128. / 255, 1, 0, 1. / 255, 128. / 255, 1, 0, 2. / 255, 128. / 255, 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("image = %v, want %v", got, want)
	}
	lab, _ := b.Get("label")
	if got, want := lab.I32, []int32{0, 1, 2}; !reflect.DeepEqual(got, want) {
		t.Fatalf("label = %v, want %v", got, want)
	}

	// Scale maps 0..255 to the range asked for.
	b = assemble(t, sink.Of[pixels](2, sink.Scale("image", -1, 1)), pixelSet(2))
	img, _ = b.Get("image")
	sc := func(v float32) float32 { return -1 + 2*v/255 } // in float32, as the sink's table
	if got, want := img.F32, []float32{-1, -1, sc(128), 1, -1, sc(1), sc(128), 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("scaled image = %v, want %v", got, want)
	}
}

// every holds one field of each kind Of reads.
type every struct {
	F32  float32        `tensor:"f32"`
	F64  [2]float64     `tensor:"f64"`
	I8   int8           `tensor:"i8"`
	I16  [2][3]int16    `tensor:"i16"`
	U16  uint16         `tensor:"u16"`
	I32  int32          `tensor:"i32"`
	I    int            `tensor:"i,label"`
	I64  int64          `tensor:"i64"`
	U32  uint32         `tensor:"u32"`
	U    uint           `tensor:"u"`
	U64  uint64         `tensor:"u64"`
	U8   [3]uint8       `tensor:"u8"`
	B    bool           `tensor:"b"`
	Seq  []float32      `tensor:"seq,shape=2x2"`
	Tok  []int32        `tensor:"tok,label,int64,shape=3"`
	AsF  int16          `tensor:"asf,float32"`
	Ptr  *[2][2]float64 `tensor:"ptr,int32"`
	Name string
	_    int
}

func TestOfEveryKind(t *testing.T) {
	s := sink.Of[every](2)
	type d struct {
		name  string
		shape []int
		dt    sample.DType
	}
	var got []d
	for _, x := range append(s.ProvideData(), s.ProvideLabel()...) {
		got = append(got, d{x.Name, x.Shape, x.DType})
	}
	want := []d{
		{"f32", []int{2}, sample.Float32}, {"f64", []int{2, 2}, sample.Float32}, {"i8", []int{2}, sample.Int32},
		{"i16", []int{2, 2, 3}, sample.Int32}, {"u16", []int{2}, sample.Int32}, {"i32", []int{2}, sample.Int32},
		{"i64", []int{2}, sample.Int64}, {"u32", []int{2}, sample.Int64}, {"u", []int{2}, sample.Int64},
		{"u64", []int{2}, sample.Int64}, {"u8", []int{2, 3}, sample.Uint8}, {"b", []int{2}, sample.Uint8},
		{"seq", []int{2, 2, 2}, sample.Float32}, {"asf", []int{2}, sample.Float32}, {"ptr", []int{2, 2, 2}, sample.Int32},
		{"i", []int{2}, sample.Int64}, {"tok", []int{2, 3}, sample.Int64},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tensors:\n got %v\nwant %v", got, want)
	}
	mk := func(k int) every {
		return every{F32: 1.5 + float32(k), F64: [2]float64{2.25, -3}, I8: -4, I16: [2][3]int16{{1, 2, 3}, {4, 5, int16(6 + k)}},
			U16: 65535, I32: -7, I: 1 << 40, I64: -1 << 50, U32: 4e9, U: 9, U64: 10, U8: [3]uint8{0, 128, 255}, B: k == 1,
			Seq: []float32{1, 2, 3, float32(4 + k)}, Tok: []int32{-1, 0, int32(k)}, AsF: -300, Ptr: &[2][2]float64{{1.9, -1.9}, {3, 4}}}
	}
	b := assemble(t, s, []every{mk(0), mk(1)})
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	get := func(name string) tensor.Tensor { x, _ := b.Get(name); return x }
	check("f32", get("f32").F32, []float32{1.5, 2.5})
	check("f64", get("f64").F32, []float32{2.25, -3, 2.25, -3})
	check("i8", get("i8").I32, []int32{-4, -4})
	check("i16", get("i16").I32, []int32{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 7})
	check("u16", get("u16").I32, []int32{65535, 65535})
	check("i", get("i").I64, []int64{1 << 40, 1 << 40})
	check("i64", get("i64").I64, []int64{-1 << 50, -1 << 50})
	check("u32", get("u32").I64, []int64{4e9, 4e9})
	check("u8", get("u8").U8, []uint8{0, 128, 255, 0, 128, 255})
	check("b", get("b").U8, []uint8{0, 1})
	check("seq", get("seq").F32, []float32{1, 2, 3, 4, 1, 2, 3, 5})
	check("tok", get("tok").I64, []int64{-1, 0, 0, -1, 0, 1})
	check("asf", get("asf").F32, []float32{-300, -300})
	check("ptr", get("ptr").I32, []int32{1, -1, 3, 4, 1, -1, 3, 4})

	// Recycled memory is overwritten whole: a second batch into the first
	// one's memory reads as if fresh.
	b.Release()
	b = assemble(t, s, []every{mk(1), mk(0)})
	check("recycled i16", get("i16").I32, []int32{1, 2, 3, 4, 5, 7, 1, 2, 3, 4, 5, 6})
	check("recycled b", get("b").U8, []uint8{1, 0})
}

func TestOfMissingValues(t *testing.T) {
	s := sink.Of[every](3)
	good := every{Seq: make([]float32, 4), Tok: make([]int32, 3), Ptr: &[2][2]float64{}}
	short := good
	short.Seq = short.Seq[:3]
	noPtr := good
	noPtr.Ptr = nil
	for _, tc := range []struct {
		samples []every
		want    string
	}{
		{[]every{good, good, short}, `field "seq", row 2 of the batch: 3 elements, want 4`},
		{[]every{good, noPtr}, `field "ptr", row 1 of the batch: nil pointer`},
	} {
		_, err := s.Assemble(batch.Batch[every]{Samples: tc.samples})
		if !errors.Is(err, sink.ErrSampleShape) || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("Assemble: %v, want ErrSampleShape with %q", err, tc.want)
		}
	}
}

func TestOfPanics(t *testing.T) {
	type noTag struct{ A int }
	type badOpt struct {
		A int `tensor:"a,big"`
	}
	type sliceNoShape struct {
		A []float32 `tensor:"a"`
	}
	type shapeOnArray struct {
		A [4]float32 `tensor:"a,shape=2x2"`
	}
	type badShape struct {
		A []float32 `tensor:"a,shape=2x0"`
	}
	type ptrScalar struct {
		A *float32 `tensor:"a"`
	}
	type str struct {
		A string `tensor:"a"`
	}
	type unexported struct {
		a int `tensor:"a"` //lint:ignore U1000 the field exists to be refused
	}
	type dup struct {
		A int `tensor:"x"`
		B int `tensor:"x"`
	}
	type noName struct {
		A int `tensor:",label"`
	}
	for _, tc := range []struct {
		name string
		of   func()
		want string
	}{
		{"not a struct", func() { sink.Of[int](1) }, "not a struct"},
		{"no tag", func() { sink.Of[noTag](1) }, "no field tagged"},
		{"bad option", func() { sink.Of[badOpt](1) }, `unknown tag option "big"`},
		{"slice without shape", func() { sink.Of[sliceNoShape](1) }, "needs shape="},
		{"shape on an array", func() { sink.Of[shapeOnArray](1) }, "shape= is for slice fields"},
		{"bad shape", func() { sink.Of[badShape](1) }, "bad shape"},
		{"pointer to a scalar", func() { sink.Of[ptrScalar](1) }, "must point to an array"},
		{"string", func() { sink.Of[str](1) }, "not a number"},
		{"unexported", func() { sink.Of[unexported](1) }, "not exported"},
		{"two tensors of one name", func() { sink.Of[dup](1) }, `two fields named "x"`},
		{"no name", func() { sink.Of[noName](1) }, "empty tensor name"},
		{"scale of no tensor", func() { sink.Of[pixels](1, sink.Scale("pix", 0, 1)) }, `Scale("pix"): no such tensor`},
		{"scale of an int", func() { sink.Of[pixels](1, sink.Scale("label", 0, 1)) }, "is for a uint8 field read as float32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Fatalf("panic %v, want one with %q", r, tc.want)
				}
			}()
			tc.of()
		})
	}
}

// TestOfMatchesFields checks Of against the same sink written field by
// field: the tags are a shorter way to say the same thing.
func TestOfMatchesFields(t *testing.T) {
	byHand := sink.New(5,
		[]sink.Field[pixels]{sink.Float32("image", []int{4}, func(d pixels, dst []float32) {
			for i, v := range d.Image {
				dst[i] = float32(v) / 255
			}
		})},
		[]sink.Field[pixels]{sink.Int32("label", nil, func(d pixels, dst []int32) { dst[0] = int32(d.Label) })})
	tagged := sink.Of[pixels](5)
	if !reflect.DeepEqual(byHand.ProvideData(), tagged.ProvideData()) || !reflect.DeepEqual(byHand.ProvideLabel(), tagged.ProvideLabel()) {
		t.Fatal("schemas differ")
	}
	a, b := assemble(t, byHand, pixelSet(5)), assemble(t, tagged, pixelSet(5))
	if !reflect.DeepEqual(a.Data, b.Data) || !reflect.DeepEqual(a.Label, b.Label) {
		t.Fatalf("tensors differ:\n%v\n%v", a.Data, b.Data)
	}
}

func TestOfAllocatesNothingOnRecycledMemory(t *testing.T) {
	s := sink.Of[pixels](64)
	samples := pixelSet(64)
	b := assemble(t, s, samples)
	b.Release()
	allocs := testing.AllocsPerRun(100, func() {
		b, err := s.Assemble(batch.Batch[pixels]{Samples: samples})
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per batch, want 0", allocs)
	}
}

func ExampleOf() {
	type Digit struct {
		Image *[4]uint8 `tensor:"image,float32"`     // [batch 4] float32 in [0, 1]
		Label uint8     `tensor:"label,label,int32"` // [batch] int32
		Index int       // no tag: not a tensor
	}
	s := sink.Of[Digit](2, sink.Scale("image", -1, 1))
	fmt.Println(s.ProvideData(), s.ProvideLabel())

	b, _ := s.Assemble(batch.Batch[Digit]{Samples: []Digit{
		{Image: &[4]uint8{0, 255, 0, 255}, Label: 7},
		{Image: &[4]uint8{255, 255, 0, 0}, Label: 1},
	}})
	x, _ := b.Get("image")
	y, _ := b.Get("label")
	fmt.Println(x.F32, y.I32)
	// Output:
	// [image float32[2 4]] [label int32[2]]
	// [-1 1 -1 1 1 1 -1 -1] [7 1]
}
