package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Shape is the height, width and channel count of one image. A batch of
// images is a matrix with one image per row, each row holding H·W·C values
// in HWC order (the channels of a pixel side by side, pixels row by row), as
// a sink's image tensor does.
type Shape struct{ H, W, C int }

// Len returns H·W·C, the number of values of one image.
func (s Shape) Len() int { return s.H * s.W * s.C }

func (s Shape) String() string { return fmt.Sprintf("%d×%d×%d", s.H, s.W, s.C) }

// window is the geometry of a convolution: a K×K kernel moved with stride S
// over an input padded by P zeros on every side.
type window struct {
	in, out Shape // out.C is the number of filters
	K, S, P int
}

func newWindow(layer string, in Shape, filters, k, stride, pad int) window {
	if in.H < 1 || in.W < 1 || in.C < 1 || filters < 1 || k < 1 || stride < 1 || pad < 0 {
		panic(fmt.Sprintf("%s: bad geometry: input %v, %d filters, kernel %d, stride %d, padding %d", layer, in, filters, k, stride, pad))
	}
	oh, ow := (in.H+2*pad-k)/stride+1, (in.W+2*pad-k)/stride+1
	if in.H+2*pad < k || in.W+2*pad < k {
		panic(fmt.Sprintf("%s: kernel %d larger than the padded input %v", layer, k, in))
	}
	return window{in: in, out: Shape{oh, ow, filters}, K: k, S: stride, P: pad}
}

// patch is the length of one row of the im2col matrix.
func (w window) patch() int { return w.K * w.K * w.in.C }

// im2col writes, for each of the n images of x and each output position,
// the input values under the kernel (zeros in the padding) as one row of
// col: (n·out.H·out.W) rows of K·K·in.C values.
func (w window) im2col(x, col []float64, n int) {
	c, row := w.in.C, w.patch()
	for b := range n {
		img := x[b*w.in.Len() : (b+1)*w.in.Len()]
		for oh := range w.out.H {
			for ow := range w.out.W {
				dst := col[((b*w.out.H+oh)*w.out.W+ow)*row:][:row]
				for ki := range w.K {
					ih := oh*w.S - w.P + ki
					seg := dst[ki*w.K*c : (ki+1)*w.K*c]
					if ih < 0 || ih >= w.in.H {
						clear(seg)
						continue
					}
					for kj := range w.K {
						iw := ow*w.S - w.P + kj
						d := seg[kj*c : (kj+1)*c]
						if iw < 0 || iw >= w.in.W {
							clear(d)
							continue
						}
						copy(d, img[(ih*w.in.W+iw)*c:])
					}
				}
			}
		}
	}
}

// col2im is the adjoint of im2col: it clears x and adds every value of col
// back to the input position it came from (values in the padding are
// dropped).
func (w window) col2im(col, x []float64, n int) {
	clear(x[:n*w.in.Len()])
	c, row := w.in.C, w.patch()
	for b := range n {
		img := x[b*w.in.Len() : (b+1)*w.in.Len()]
		for oh := range w.out.H {
			for ow := range w.out.W {
				src := col[((b*w.out.H+oh)*w.out.W+ow)*row:][:row]
				for ki := range w.K {
					ih := oh*w.S - w.P + ki
					if ih < 0 || ih >= w.in.H {
						continue
					}
					for kj := range w.K {
						iw := ow*w.S - w.P + kj
						if iw < 0 || iw >= w.in.W {
							continue
						}
						d := img[(ih*w.in.W+iw)*c:][:c]
						for i, v := range src[(ki*w.K+kj)*c:][:c] {
							d[i] += v
						}
					}
				}
			}
		}
	}
}

// grow returns s with length n, reusing its array when it is large enough.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// general views data as an r×c row-major BLAS matrix.
func general(data []float64, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: data[:r*c]}
}

// gemm computes c = alpha·op(a)·op(b) + beta·c.
func gemm(ta, tb blas.Transpose, a, b blas64.General, beta float64, c blas64.General) {
	blas64.Gemm(ta, tb, 1, a, b, beta, c)
}

// initWeights fills w from a normal distribution scaled by gain/sqrt(fanIn).
func initWeights(w []float64, fanIn int, gain float64, r *rand.Rand) {
	std := gain / math.Sqrt(float64(fanIn))
	for i := range w {
		w[i] = r.NormFloat64() * std
	}
}

// addBias adds b to every group of len(b) values of y (one group per pixel
// in HWC order).
func addBias(y, b []float64) {
	for i := 0; i < len(y); i += len(b) {
		for j, bj := range b {
			y[i+j] += bj
		}
	}
}

// sumBias adds every group of len(g) values of dy to g.
func sumBias(dy, g []float64) {
	for i := 0; i < len(dy); i += len(g) {
		for j, v := range dy[i : i+len(g)] {
			g[j] += v
		}
	}
}

// Conv2D is a two-dimensional convolution (cross-correlation, as in every
// framework) of images in HWC order with Out filters of K×K×In.C weights,
// a stride and zero padding, plus one bias per filter. It runs as one
// matrix product per batch over the im2col matrix of the input, which it
// keeps for Backward (n·Out.H·Out.W·K·K·In.C values).
type Conv2D struct {
	W, B *Param // W is (K·K·In.C)×filters, row index (ki·K+kj)·In.C+c; B is 1×filters
	// NoInputGrad skips the gradient with respect to the input in
	// Backward, as Linear's does.
	NoInputGrad bool

	win        window
	col, dcol  []float64
	y, dx      *mat.Dense
	yData, dxD []float64
}

// NewConv2D returns a convolution of images of shape in with the given
// number of filters, kernel size, stride and padding. The output is
// (in.H+2·pad-k)/stride+1 pixels high (and as wide) with one channel per
// filter; OutShape reports it. Weights are drawn as NewLinear's are, with
// the fan-in K·K·in.C; biases start at zero. It panics on a bad geometry.
func NewConv2D(in Shape, filters, k, stride, pad int, gain float64, r *rand.Rand) *Conv2D {
	w := newWindow("nn.NewConv2D", in, filters, k, stride, pad)
	l := &Conv2D{W: newParam("W", w.patch(), filters), B: newParam("b", 1, filters), win: w}
	initWeights(raw(l.W.W), w.patch(), gain, r)
	return l
}

// OutShape returns the shape of one output image.
func (l *Conv2D) OutShape() Shape { return l.win.out }

// Forward implements Layer.
func (l *Conv2D) Forward(x *mat.Dense, _ bool) *mat.Dense {
	w := l.win
	n, c := x.Dims()
	if c != w.in.Len() {
		panic(fmt.Sprintf("nn.Conv2D: input has %d columns, want %v = %d", c, w.in, w.in.Len()))
	}
	rows := n * w.out.H * w.out.W
	l.col = grow(l.col, rows*w.patch())
	w.im2col(raw(x), l.col, n)
	l.yData = grow(l.yData, rows*w.out.C)
	gemm(blas.NoTrans, blas.NoTrans, general(l.col, rows, w.patch()), l.W.W.RawMatrix(), 0, general(l.yData, rows, w.out.C))
	addBias(l.yData, raw(l.B.W))
	l.y = view(l.y, l.yData, n, w.out.Len())
	return l.y
}

// Backward implements Layer.
func (l *Conv2D) Backward(dy *mat.Dense) *mat.Dense {
	w := l.win
	n, _ := dy.Dims()
	rows := n * w.out.H * w.out.W
	d := general(raw(dy), rows, w.out.C)
	gemm(blas.Trans, blas.NoTrans, general(l.col, rows, w.patch()), d, 1, l.W.G.RawMatrix())
	sumBias(d.Data, raw(l.B.G))
	if l.NoInputGrad {
		return nil
	}
	l.dcol = grow(l.dcol, rows*w.patch())
	gemm(blas.NoTrans, blas.Trans, d, l.W.W.RawMatrix(), 0, general(l.dcol, rows, w.patch()))
	l.dxD = grow(l.dxD, n*w.in.Len())
	w.col2im(l.dcol, l.dxD, n)
	l.dx = view(l.dx, l.dxD, n, w.in.Len())
	return l.dx
}

// Params implements Layer.
func (l *Conv2D) Params() []*Param { return []*Param{l.W, l.B} }

// ConvTranspose2D is the transposed convolution (sometimes called
// deconvolution) that a generator uses to double an image's size: it is
// the adjoint of a Conv2D with the same kernel, stride and padding, so an
// input of H×W pixels becomes (H-1)·stride-2·pad+k pixels high (and as
// wide). Each input pixel is multiplied by an In.C×(K·K·filters) weight
// matrix and the K×K results are added into the output around its
// position; then one bias per filter is added.
type ConvTranspose2D struct {
	W, B *Param // W is In.C×(K·K·filters); B is 1×filters

	in         Shape
	win        window // the adjoint convolution: output shape → this layer's input shape
	x          *mat.Dense
	col, dcol  []float64
	y, dx      *mat.Dense
	yData, dxD []float64
}

// NewConvTranspose2D returns a transposed convolution of images of shape in
// with the given number of filters (output channels), kernel size, stride
// and padding; OutShape reports the output's shape. Weights are drawn with
// the fan-in in.C·K·K/stride² (the inputs that reach one output value on
// average); biases start at zero. It panics on a bad geometry.
func NewConvTranspose2D(in Shape, filters, k, stride, pad int, gain float64, r *rand.Rand) *ConvTranspose2D {
	if in.H < 1 || in.W < 1 || in.C < 1 || k < 1 || stride < 1 || pad < 0 {
		panic(fmt.Sprintf("nn.NewConvTranspose2D: bad geometry: input %v, kernel %d, stride %d, padding %d", in, k, stride, pad))
	}
	out := Shape{(in.H-1)*stride - 2*pad + k, (in.W-1)*stride - 2*pad + k, filters}
	if out.H < 1 || out.W < 1 {
		panic(fmt.Sprintf("nn.NewConvTranspose2D: input %v gives an empty output", in))
	}
	w := newWindow("nn.NewConvTranspose2D", out, in.C, k, stride, pad)
	if w.out.H != in.H || w.out.W != in.W {
		panic(fmt.Sprintf("nn.NewConvTranspose2D: input %v is not the output of a convolution of %v", in, out))
	}
	l := &ConvTranspose2D{W: newParam("W", in.C, k*k*filters), B: newParam("b", 1, filters), in: in, win: w}
	initWeights(raw(l.W.W), max(1, in.C*k*k/(stride*stride)), gain, r)
	return l
}

// OutShape returns the shape of one output image.
func (l *ConvTranspose2D) OutShape() Shape { return l.win.in }

// Forward implements Layer.
func (l *ConvTranspose2D) Forward(x *mat.Dense, _ bool) *mat.Dense {
	w := l.win
	n, c := x.Dims()
	if c != l.in.Len() {
		panic(fmt.Sprintf("nn.ConvTranspose2D: input has %d columns, want %v = %d", c, l.in, l.in.Len()))
	}
	l.x = x
	rows := n * l.in.H * l.in.W
	l.col = grow(l.col, rows*w.patch())
	gemm(blas.NoTrans, blas.NoTrans, general(raw(x), rows, l.in.C), l.W.W.RawMatrix(), 0, general(l.col, rows, w.patch()))
	l.yData = grow(l.yData, n*w.in.Len())
	w.col2im(l.col, l.yData, n)
	addBias(l.yData, raw(l.B.W))
	l.y = view(l.y, l.yData, n, w.in.Len())
	return l.y
}

// Backward implements Layer.
func (l *ConvTranspose2D) Backward(dy *mat.Dense) *mat.Dense {
	w := l.win
	n, _ := dy.Dims()
	rows := n * l.in.H * l.in.W
	sumBias(raw(dy), raw(l.B.G))
	l.dcol = grow(l.dcol, rows*w.patch())
	w.im2col(raw(dy), l.dcol, n)
	dcol := general(l.dcol, rows, w.patch())
	gemm(blas.Trans, blas.NoTrans, general(raw(l.x), rows, l.in.C), dcol, 1, l.W.G.RawMatrix())
	l.dxD = grow(l.dxD, n*l.in.Len())
	gemm(blas.NoTrans, blas.Trans, dcol, l.W.W.RawMatrix(), 0, general(l.dxD, rows, l.in.C))
	l.dx = view(l.dx, l.dxD, n, l.in.Len())
	return l.dx
}

// Params implements Layer.
func (l *ConvTranspose2D) Params() []*Param { return []*Param{l.W, l.B} }

// view returns m when it already is the r×c matrix over data, else a new
// one.
func view(m *mat.Dense, data []float64, r, c int) *mat.Dense {
	if m != nil {
		rm := m.RawMatrix()
		if rm.Rows == r && rm.Cols == c && &rm.Data[0] == &data[0] {
			return m
		}
	}
	return mat.NewDense(r, c, data[:r*c])
}
