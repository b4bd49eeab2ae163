package mnist

import (
	"encoding/binary"
	"fmt"
)

// Scale says how pixel bytes (0..255) become float32 values.
//
// Every scale is a table of the 256 float32 values, computed once in
// float64 and rounded to float32: ScaleSymmetric's value of x is the
// float32 nearest to x/255*2 - 1, which for some bytes differs in the last
// bit from the float32 arithmetic float32(x)*(2.0/255) - 1. Every path
// (Value, Pixels, FillImage) reads the same table, so they write the same
// bits.
type Scale uint8

const (
	// ScaleUnit maps a byte x to x/255, in [0, 1]. It is the default.
	ScaleUnit Scale = iota
	// ScaleMXNet maps x to x/256, in [0, 255/256], as MXNet's MNISTIter
	// does (src/io/iter_mnist.cc).
	ScaleMXNet
	// ScaleSymmetric maps x to x/255*2 - 1, in [-1, 1], as PaddlePaddle's
	// MNIST reader does.
	ScaleSymmetric
	// ScaleRaw keeps the byte's value, in [0, 255].
	ScaleRaw
	numScales
)

// scaleTables holds, for each Scale, the float32 value of every byte.
var scaleTables = func() (t [numScales][256]float32) {
	for x := range 256 {
		v := float64(x)
		t[ScaleUnit][x] = float32(v / 255)
		t[ScaleMXNet][x] = float32(v / 256)
		t[ScaleSymmetric][x] = float32(v/255*2 - 1)
		t[ScaleRaw][x] = float32(v)
	}
	return t
}()

func (s Scale) String() string {
	switch s {
	case ScaleUnit:
		return "unit"
	case ScaleMXNet:
		return "mxnet"
	case ScaleSymmetric:
		return "symmetric"
	case ScaleRaw:
		return "raw"
	}
	return fmt.Sprintf("Scale(%d)", uint8(s))
}

// Value returns the float32 value of the byte x.
func (s Scale) Value(x uint8) float32 { return s.table()[x] }

// Pixels writes the scaled value of each byte of src to dst, which must be
// at least as long as src: the value Value gives, bit for bit. It reads
// the bytes eight at a time, with no bounds check per pixel, and writes a
// run of eight background pixels (0, most of a digit) without a look-up.
// It does not allocate.
func (s Scale) Pixels(src []uint8, dst []float32) {
	t := s.table()
	dst = dst[:len(src)]
	z := t[0]
	n := len(src) &^ 7
	for i := 0; i < n; i += 8 {
		v := binary.LittleEndian.Uint64(src[i : i+8])
		d := dst[i : i+8 : i+8]
		if v == 0 {
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = z, z, z, z, z, z, z, z
			continue
		}
		d[0] = t[byte(v)]
		d[1] = t[byte(v>>8)]
		d[2] = t[byte(v>>16)]
		d[3] = t[byte(v>>24)]
		d[4] = t[byte(v>>32)]
		d[5] = t[byte(v>>40)]
		d[6] = t[byte(v>>48)]
		d[7] = t[byte(v>>56)]
	}
	s.pixelsScalar(src[n:], dst[n:])
}

// pixelsScalar is Pixels one byte at a time: the straightforward loop,
// kept to check Pixels against.
func (s Scale) pixelsScalar(src []uint8, dst []float32) {
	t := s.table()
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = t[x]
	}
}

func (s Scale) table() *[256]float32 {
	if s >= numScales {
		panic(fmt.Sprintf("mnist: unknown %v", s))
	}
	return &scaleTables[s]
}
