package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// BatchNorm is batch normalisation (Ioffe and Szegedy, 2015) over
// channels: the values of each of its C channels, across the batch and,
// for images in HWC order, across the pixels, are normalised to mean 0 and
// variance 1 and then scaled by Gamma and shifted by Beta. For a fully
// connected layer's output, C is the number of columns.
//
// In training it normalises with the batch's statistics and keeps moving
// averages of them (Momentum is the weight of the new batch, 0.1 by
// default); in inference it normalises with the moving averages.
type BatchNorm struct {
	Gamma, Beta *Param // 1×C, starting at 1 and 0
	Momentum    float64
	Eps         float64

	Mean, Var []float64 // the moving averages used in inference

	c              int
	xhat, invStd   []float64
	y, dx          *mat.Dense
	yData, dxData  []float64
	sum, sumXhat   []float64
	started, train bool
}

// NewBatchNorm returns a batch normalisation of c channels. It panics
// unless c >= 1.
func NewBatchNorm(c int) *BatchNorm {
	if c < 1 {
		panic(fmt.Sprintf("nn.NewBatchNorm: %d channels", c))
	}
	b := &BatchNorm{Gamma: newParam("gamma", 1, c), Beta: newParam("beta", 1, c), Momentum: 0.1, Eps: 1e-5,
		Mean: make([]float64, c), Var: make([]float64, c), c: c}
	for i := range c {
		b.Gamma.W.Set(0, i, 1)
		b.Var[i] = 1
	}
	return b
}

// Forward implements Layer.
func (b *BatchNorm) Forward(x *mat.Dense, train bool) *mat.Dense {
	n, cols := x.Dims()
	if cols%b.c != 0 {
		panic(fmt.Sprintf("nn.BatchNorm: %d columns are not a multiple of %d channels", cols, b.c))
	}
	c := b.c
	xs := raw(x)
	m := len(xs) / c
	b.train = train
	b.invStd = grow(b.invStd, c)
	b.sum = grow(b.sum, c)
	mean, variance := b.Mean, b.Var
	if train {
		if m < 2 {
			panic("nn.BatchNorm: training needs at least two values per channel")
		}
		mean, variance = b.sum, grow(b.sumXhat, c)
		b.sumXhat = variance
		clear(mean)
		clear(variance)
		for i := 0; i < len(xs); i += c {
			for j, v := range xs[i : i+c] {
				mean[j] += v
			}
		}
		for j := range mean {
			mean[j] /= float64(m)
		}
		for i := 0; i < len(xs); i += c {
			for j, v := range xs[i : i+c] {
				d := v - mean[j]
				variance[j] += d * d
			}
		}
		mom := b.Momentum
		if !b.started {
			mom, b.started = 1, true
		}
		for j := range variance {
			variance[j] /= float64(m)
			b.Mean[j] += mom * (mean[j] - b.Mean[j])
			b.Var[j] += mom * (variance[j]*float64(m)/float64(m-1) - b.Var[j])
		}
	}
	for j := range c {
		b.invStd[j] = 1 / math.Sqrt(variance[j]+b.Eps)
	}
	b.xhat = grow(b.xhat, len(xs))
	b.yData = grow(b.yData, len(xs))
	gamma, beta := raw(b.Gamma.W), raw(b.Beta.W)
	for i := 0; i < len(xs); i += c {
		for j, v := range xs[i : i+c] {
			h := (v - mean[j]) * b.invStd[j]
			b.xhat[i+j] = h
			b.yData[i+j] = gamma[j]*h + beta[j]
		}
	}
	b.y = view(b.y, b.yData, n, cols)
	return b.y
}

// Backward implements Layer.
func (b *BatchNorm) Backward(dy *mat.Dense) *mat.Dense {
	n, cols := dy.Dims()
	c := b.c
	ds := raw(dy)
	m := float64(len(ds) / c)
	sum, sumXhat := grow(b.sum, c), grow(b.sumXhat, c)
	clear(sum)
	clear(sumXhat)
	for i := 0; i < len(ds); i += c {
		for j, d := range ds[i : i+c] {
			sum[j] += d
			sumXhat[j] += d * b.xhat[i+j]
		}
	}
	gg, gb, gamma := raw(b.Gamma.G), raw(b.Beta.G), raw(b.Gamma.W)
	for j := range c {
		gg[j] += sumXhat[j]
		gb[j] += sum[j]
	}
	b.dxData = grow(b.dxData, len(ds))
	for i := 0; i < len(ds); i += c {
		for j, d := range ds[i : i+c] {
			k := gamma[j] * b.invStd[j]
			if b.train {
				// The batch's mean and variance depend on x too.
				b.dxData[i+j] = k * (d - sum[j]/m - b.xhat[i+j]*sumXhat[j]/m)
			} else {
				b.dxData[i+j] = k * d
			}
		}
	}
	b.dx = view(b.dx, b.dxData, n, cols)
	return b.dx
}

// Params implements Layer.
func (b *BatchNorm) Params() []*Param { return []*Param{b.Gamma, b.Beta} }
