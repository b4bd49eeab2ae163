package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	Step(params []*Param)
}

// SGD is stochastic gradient descent with (heavy-ball) momentum and L2
// weight decay.
type SGD struct {
	LR, Momentum, WeightDecay float64

	v map[*Param]*mat.Dense
}

// Step implements Optimizer.
func (o *SGD) Step(params []*Param) {
	if o.v == nil {
		o.v = make(map[*Param]*mat.Dense)
	}
	for _, p := range params {
		v, ok := o.v[p]
		if !ok {
			r, c := p.W.Dims()
			v = mat.NewDense(r, c, nil)
			o.v[p] = v
		}
		w, g, vs := raw(p.W), raw(p.G), raw(v)
		for i := range w {
			vs[i] = o.Momentum*vs[i] + g[i] + o.WeightDecay*w[i]
			w[i] -= o.LR * vs[i]
		}
	}
}

// Adam is the Adam optimiser (Kingma and Ba, 2015) with bias correction.
// Zero Beta1, Beta2 and Eps take the usual defaults 0.9, 0.999 and 1e-8.
type Adam struct {
	LR, Beta1, Beta2, Eps float64

	t    int
	m, v map[*Param]*mat.Dense
}

// Step implements Optimizer.
func (o *Adam) Step(params []*Param) {
	if o.m == nil {
		o.m, o.v = make(map[*Param]*mat.Dense), make(map[*Param]*mat.Dense)
		if o.Beta1 == 0 {
			o.Beta1 = 0.9
		}
		if o.Beta2 == 0 {
			o.Beta2 = 0.999
		}
		if o.Eps == 0 {
			o.Eps = 1e-8
		}
	}
	o.t++
	c1 := 1 - math.Pow(o.Beta1, float64(o.t))
	c2 := 1 - math.Pow(o.Beta2, float64(o.t))
	lr := o.LR * math.Sqrt(c2) / c1
	for _, p := range params {
		m, ok := o.m[p]
		if !ok {
			r, c := p.W.Dims()
			m = mat.NewDense(r, c, nil)
			o.m[p] = m
			o.v[p] = mat.NewDense(r, c, nil)
		}
		w, g, ms, vs := raw(p.W), raw(p.G), raw(m), raw(o.v[p])
		b1, b2, eps := o.Beta1, o.Beta2, o.Eps
		for i, gi := range g {
			ms[i] = b1*ms[i] + (1-b1)*gi
			vs[i] = b2*vs[i] + (1-b2)*gi*gi
			w[i] -= lr * ms[i] / (math.Sqrt(vs[i]) + eps)
		}
	}
}

// Average moves every parameter of avg towards the matching parameter of
// params: avg = decay·avg + (1-decay)·params, an exponential moving average
// of the weights (Polyak averaging). A GAN's generator sampled with
// averaged weights draws cleaner images than with its latest ones, which
// still oscillate with the discriminator. avg and params must come from
// two models built alike; Average panics when their shapes differ.
func Average(avg, params []*Param, decay float64) {
	if len(avg) != len(params) {
		panic(fmt.Sprintf("nn.Average: %d averaged parameters for %d", len(avg), len(params)))
	}
	for i, p := range params {
		ar, ac := avg[i].W.Dims()
		pr, pc := p.W.Dims()
		if ar != pr || ac != pc {
			panic(fmt.Sprintf("nn.Average: parameter %d (%s) is %d×%d, its average %d×%d", i, p.Name, pr, pc, ar, ac))
		}
		a, w := raw(avg[i].W), raw(p.W)
		for j, v := range w {
			a[j] = decay*a[j] + (1-decay)*v
		}
	}
}
