package nn

import "gonum.org/v1/gonum/mat"

// Param is a trainable matrix and the gradient of the loss with respect to
// it. Both have the same shape.
type Param struct {
	Name string
	W    *mat.Dense // value
	G    *mat.Dense // gradient, accumulated by Backward
}

func newParam(name string, r, c int) *Param {
	return &Param{Name: name, W: mat.NewDense(r, c, nil), G: mat.NewDense(r, c, nil)}
}

// Layer is one step of a model.
type Layer interface {
	// Forward computes the layer's output for a batch x (one sample per
	// row). The result is owned by the layer and valid until the next
	// Forward. train is false for inference.
	Forward(x *mat.Dense, train bool) *mat.Dense
	// Backward takes the gradient of the loss with respect to the output of
	// the last Forward, adds the parameter gradients to Params()[i].G and
	// returns the gradient with respect to that Forward's input (owned by
	// the layer). It may return nil when the layer was told that no input
	// gradient is needed.
	Backward(dy *mat.Dense) *mat.Dense
	// Params returns the layer's trainable parameters (nil for none).
	Params() []*Param
}

// buffer returns m when it already has r rows and c columns, else a new
// zeroed r×c matrix.
func buffer(m *mat.Dense, r, c int) *mat.Dense {
	if m != nil {
		mr, mc := m.Dims()
		if mr == r && mc == c {
			return m
		}
	}
	return mat.NewDense(r, c, nil)
}

// raw returns the elements of m, which must be a dense, unstrided matrix
// made by this package (row stride == columns).
func raw(m *mat.Dense) []float64 {
	rm := m.RawMatrix()
	if rm.Stride != rm.Cols {
		panic("nn: strided matrix")
	}
	return rm.Data[:rm.Rows*rm.Cols]
}
