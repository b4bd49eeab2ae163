package mnist

import "fmt"

// Scale says how pixel bytes (0..255) become float32 values.
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
// at least as long as src.
func (s Scale) Pixels(src []uint8, dst []float32) {
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
