package nn

import "gonum.org/v1/gonum/mat"

// Sequential runs layers one after the other.
type Sequential []Layer

// Forward implements Layer.
func (s Sequential) Forward(x *mat.Dense, train bool) *mat.Dense {
	for _, l := range s {
		x = l.Forward(x, train)
	}
	return x
}

// Backward implements Layer. It stops early and returns nil when a layer
// returns no input gradient (a first layer with NoInputGrad).
func (s Sequential) Backward(dy *mat.Dense) *mat.Dense {
	for i := len(s) - 1; i >= 0 && dy != nil; i-- {
		dy = s[i].Backward(dy)
	}
	return dy
}

// Params implements Layer.
func (s Sequential) Params() []*Param {
	var ps []*Param
	for _, l := range s {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// ZeroGrad clears the gradients of params.
func ZeroGrad(params []*Param) {
	for _, p := range params {
		clear(raw(p.G))
	}
}

// NumParams returns the number of scalar parameters in params.
func NumParams(params []*Param) int {
	n := 0
	for _, p := range params {
		r, c := p.W.Dims()
		n += r * c
	}
	return n
}
