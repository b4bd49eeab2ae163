package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Linear is a fully connected layer: y = x·W + b, with W of shape in×out
// and b of shape 1×out.
type Linear struct {
	W, B *Param
	// NoInputGrad skips the gradient with respect to the input in Backward
	// (Backward returns nil). Set it on a model's first layer, whose input
	// is data: it saves a third of the layer's backward work.
	NoInputGrad bool

	x       *mat.Dense // input of the last Forward
	y, dx   *mat.Dense
	in, out int
}

// NewLinear returns an in×out layer with weights drawn from a normal
// distribution scaled by gain/sqrt(in) (He initialisation with gain √2 for
// ReLU layers, Xavier-like with gain 1) and zero biases.
func NewLinear(in, out int, gain float64, r *rand.Rand) *Linear {
	if in < 1 || out < 1 {
		panic(fmt.Sprintf("nn.NewLinear: bad shape %d×%d", in, out))
	}
	l := &Linear{W: newParam("W", in, out), B: newParam("b", 1, out), in: in, out: out}
	std := gain / math.Sqrt(float64(in))
	w := raw(l.W.W)
	for i := range w {
		w[i] = r.NormFloat64() * std
	}
	return l
}

// Forward implements Layer.
func (l *Linear) Forward(x *mat.Dense, _ bool) *mat.Dense {
	n, c := x.Dims()
	if c != l.in {
		panic(fmt.Sprintf("nn.Linear: input has %d columns, want %d", c, l.in))
	}
	l.x = x
	l.y = buffer(l.y, n, l.out)
	l.y.Mul(x, l.W.W)
	y, b := raw(l.y), raw(l.B.W)
	for i := 0; i < n; i++ {
		row := y[i*l.out : (i+1)*l.out]
		for j, bj := range b {
			row[j] += bj
		}
	}
	return l.y
}

// Backward implements Layer.
func (l *Linear) Backward(dy *mat.Dense) *mat.Dense {
	n, _ := dy.Dims()
	// dW += xᵀ·dy, accumulated in place by the BLAS call (beta = 1).
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, l.x.RawMatrix(), dy.RawMatrix(), 1, l.W.G.RawMatrix())
	g, d := raw(l.B.G), raw(dy)
	for i := 0; i < n; i++ {
		row := d[i*l.out : (i+1)*l.out]
		for j, v := range row {
			g[j] += v
		}
	}
	if l.NoInputGrad {
		return nil
	}
	l.dx = buffer(l.dx, n, l.in)
	l.dx.Mul(dy, l.W.W.T())
	return l.dx
}

// Params implements Layer.
func (l *Linear) Params() []*Param { return []*Param{l.W, l.B} }
