package nn

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Dropout is inverted dropout: in training it zeroes each element with
// probability P and scales the others by 1/(1-P); in inference it passes
// its input through. The mask is drawn from R, so a seeded generator makes
// runs repeat.
type Dropout struct {
	P float64
	R *rand.Rand

	mask  []float64
	y, dx *mat.Dense
	train bool
}

// NewDropout returns a dropout layer. It panics unless 0 <= p < 1.
func NewDropout(p float64, r *rand.Rand) *Dropout {
	if p < 0 || p >= 1 {
		panic(fmt.Sprintf("nn.NewDropout: p = %v, want [0, 1)", p))
	}
	return &Dropout{P: p, R: r}
}

// Forward implements Layer.
func (d *Dropout) Forward(x *mat.Dense, train bool) *mat.Dense {
	d.train = train && d.P > 0
	if !d.train {
		return x
	}
	r, c := x.Dims()
	d.y = buffer(d.y, r, c)
	if cap(d.mask) < r*c {
		d.mask = make([]float64, r*c)
	}
	d.mask = d.mask[:r*c]
	keep := 1 / (1 - d.P)
	xs, ys := raw(x), raw(d.y)
	for i, v := range xs {
		if d.R.Float64() < d.P {
			d.mask[i] = 0
		} else {
			d.mask[i] = keep
		}
		ys[i] = v * d.mask[i]
	}
	return d.y
}

// Backward implements Layer.
func (d *Dropout) Backward(dy *mat.Dense) *mat.Dense {
	if !d.train {
		return dy
	}
	r, c := dy.Dims()
	d.dx = buffer(d.dx, r, c)
	ds, dxs := raw(dy), raw(d.dx)
	for i, v := range ds {
		dxs[i] = v * d.mask[i]
	}
	return d.dx
}

// Params implements Layer.
func (d *Dropout) Params() []*Param { return nil }
