package nn

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// elementwise is a layer that applies f to every element and multiplies the
// incoming gradient by df(x, y) on the way back.
type elementwise struct {
	f  func(x float64) float64
	df func(x, y float64) float64

	x, y, dx *mat.Dense
}

func (e *elementwise) Forward(x *mat.Dense, _ bool) *mat.Dense {
	r, c := x.Dims()
	e.x = x
	e.y = buffer(e.y, r, c)
	xs, ys := raw(x), raw(e.y)
	for i, v := range xs {
		ys[i] = e.f(v)
	}
	return e.y
}

func (e *elementwise) Backward(dy *mat.Dense) *mat.Dense {
	r, c := dy.Dims()
	e.dx = buffer(e.dx, r, c)
	xs, ys, ds, dxs := raw(e.x), raw(e.y), raw(dy), raw(e.dx)
	for i, d := range ds {
		dxs[i] = d * e.df(xs[i], ys[i])
	}
	return e.dx
}

func (e *elementwise) Params() []*Param { return nil }

// ReLU returns the layer max(0, x).
func ReLU() Layer { return LeakyReLU(0) }

// LeakyReLU returns the layer x for x > 0, alpha·x otherwise.
func LeakyReLU(alpha float64) Layer {
	return &elementwise{
		f: func(x float64) float64 {
			if x > 0 {
				return x
			}
			return alpha * x
		},
		df: func(x, _ float64) float64 {
			if x > 0 {
				return 1
			}
			return alpha
		},
	}
}

// Tanh returns the layer tanh(x).
func Tanh() Layer {
	return &elementwise{
		f:  math.Tanh,
		df: func(_, y float64) float64 { return 1 - y*y },
	}
}

// Sigmoid returns the layer 1/(1+e^-x).
func Sigmoid() Layer {
	return &elementwise{
		f:  sigmoid,
		df: func(_, y float64) float64 { return y * (1 - y) },
	}
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
