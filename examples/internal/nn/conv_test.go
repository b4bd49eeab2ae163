package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/tensorfeed/tensorfeed/examples/internal/nn"
)

// meanSquare is a loss with a gradient that differs for every output value,
// so that a wrong index in a backward pass shows.
func meanSquare(w *mat.Dense) func(*mat.Dense) (float64, *mat.Dense) {
	var grad *mat.Dense
	return func(z *mat.Dense) (float64, *mat.Dense) {
		r, c := z.Dims()
		if grad == nil {
			grad = mat.NewDense(r, c, nil)
		}
		l := 0.0
		for i := range r {
			for j := range c {
				v := z.At(i, j) * w.At(i, j)
				l += v * v / 2
				grad.Set(i, j, v*w.At(i, j))
			}
		}
		return l, grad
	}
}

func TestGradientConv(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name             string
		in               nn.Shape
		filters, k, s, p int
		wantH, wantW     int
	}{
		{"3x3 same", nn.Shape{H: 5, W: 4, C: 2}, 3, 3, 1, 1, 5, 4},
		{"4x4 stride 2", nn.Shape{H: 6, W: 6, C: 3}, 2, 4, 2, 1, 3, 3},
		{"5x5 stride 2 pad 2", nn.Shape{H: 7, W: 7, C: 1}, 2, 5, 2, 2, 4, 4},
		{"no padding", nn.Shape{H: 4, W: 5, C: 2}, 2, 2, 1, 0, 3, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := nn.NewConv2D(tc.in, tc.filters, tc.k, tc.s, tc.p, 1, r)
			if got := conv.OutShape(); got != (nn.Shape{H: tc.wantH, W: tc.wantW, C: tc.filters}) {
				t.Fatalf("OutShape = %v", got)
			}
			out := conv.OutShape()
			model := nn.Sequential{conv, nn.Tanh(), nn.NewBatchNorm(out.C)}
			x := randDense(r, 3, tc.in.Len())
			gradCheck(t, model, x, meanSquare(randDense(r, 3, out.Len())))
		})
		t.Run(tc.name+" transposed", func(t *testing.T) {
			// The transposed convolution maps the convolution's output
			// shape back to its input shape.
			in := nn.Shape{H: tc.wantH, W: tc.wantW, C: 2}
			up := nn.NewConvTranspose2D(in, tc.in.C, tc.k, tc.s, tc.p, 1, r)
			if up.OutShape() != tc.in && (tc.in.H+2*tc.p-tc.k)%tc.s == 0 {
				t.Fatalf("OutShape = %v, want %v", up.OutShape(), tc.in)
			}
			out := up.OutShape()
			model := nn.Sequential{up, nn.NewBatchNorm(out.C), nn.Tanh()}
			x := randDense(r, 2, in.Len())
			gradCheck(t, model, x, meanSquare(randDense(r, 2, out.Len())))
		})
	}
}

func TestConvValues(t *testing.T) {
	// A 3×3 single-channel image, a 2×2 kernel of ones, stride 1, no
	// padding: each output is the sum of a 2×2 block, plus the bias.
	conv := nn.NewConv2D(nn.Shape{H: 3, W: 3, C: 1}, 1, 2, 1, 0, 1, rand.New(rand.NewPCG(1, 1)))
	conv.W.W.Copy(mat.NewDense(4, 1, []float64{1, 1, 1, 1}))
	conv.B.W.Set(0, 0, 0.5)
	y := conv.Forward(mat.NewDense(1, 9, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}), false)
	want := []float64{12.5, 16.5, 24.5, 28.5}
	if !mat.Equal(y, mat.NewDense(1, 4, want)) {
		t.Errorf("y = %v, want %v", mat.Formatted(y), want)
	}
}

func TestConvTransposeIsAdjoint(t *testing.T) {
	// <conv(x), y> = <x, convT(y)> with the same weights and no biases.
	r := rand.New(rand.NewPCG(3, 3))
	in := nn.Shape{H: 8, W: 8, C: 3}
	conv := nn.NewConv2D(in, 4, 4, 2, 1, 1, r)
	up := nn.NewConvTranspose2D(conv.OutShape(), in.C, 4, 2, 1, 1, r)
	if up.OutShape() != in {
		t.Fatalf("transposed output %v, want %v", up.OutShape(), in)
	}
	// Conv's W is (K·K·C)×filters; the transposed layer's is filters×(K·K·C).
	up.W.W.Copy(conv.W.W.T())
	x, y := randDense(r, 2, in.Len()), randDense(r, 2, conv.OutShape().Len())
	lhs := mat.Dot(flat(conv.Forward(x, false)), flat(y))
	rhs := mat.Dot(flat(x), flat(up.Forward(y, false)))
	if math.Abs(lhs-rhs) > 1e-9*math.Abs(lhs) {
		t.Errorf("<conv x, y> = %v, <x, convT y> = %v", lhs, rhs)
	}
}

// flat views m's elements as a vector.
func flat(m *mat.Dense) mat.Vector {
	r, c := m.Dims()
	return mat.NewVecDense(r*c, m.RawMatrix().Data[:r*c])
}

func TestBatchNormNormalises(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	bn := nn.NewBatchNorm(2)
	x := randDense(r, 50, 6) // 50 images of 3 pixels × 2 channels
	x.Apply(func(_, j int, v float64) float64 { return 3*v + float64(j%2)*10 }, x)
	y := bn.Forward(x, true)
	for c := range 2 {
		var s, ss float64
		for i := range 50 {
			for p := range 3 {
				v := y.At(i, p*2+c)
				s += v
				ss += v * v
			}
		}
		if mean, v := s/150, ss/150; math.Abs(mean) > 1e-9 || math.Abs(v-1) > 1e-3 {
			t.Errorf("channel %d: mean %v, variance %v", c, mean, v)
		}
	}
	// The first batch sets the moving averages; inference uses them.
	if math.Abs(bn.Mean[1]-10) > 1.5 || math.Abs(bn.Var[0]-9) > 3 {
		t.Errorf("moving mean %v, variance %v", bn.Mean, bn.Var)
	}
	if got, want := bn.Forward(x, false).At(0, 0), y.At(0, 0); math.Abs(got-want) > 0.01 {
		t.Errorf("inference %v, training %v on the batch that set the averages", got, want)
	}
}

func TestConvPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for name, f := range map[string]func(){
		"conv kernel too large": func() { nn.NewConv2D(nn.Shape{H: 2, W: 2, C: 1}, 1, 5, 1, 0, 1, r) },
		"conv no filters":       func() { nn.NewConv2D(nn.Shape{H: 4, W: 4, C: 1}, 0, 3, 1, 1, 1, r) },
		"transposed stride 0":   func() { nn.NewConvTranspose2D(nn.Shape{H: 4, W: 4, C: 1}, 1, 3, 0, 1, 1, r) },
		"batch norm 0":          func() { nn.NewBatchNorm(0) },
		"conv wrong input": func() {
			nn.NewConv2D(nn.Shape{H: 4, W: 4, C: 1}, 1, 3, 1, 1, 1, r).Forward(mat.NewDense(1, 15, nil), false)
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

// A DCGAN-style generator: a noise vector becomes a 7×7 map of 8 channels,
// which two transposed convolutions enlarge to 14×14 and 28×28.
func ExampleConvTranspose2D() {
	r := rand.New(rand.NewPCG(1, 2))
	start := nn.Shape{H: 7, W: 7, C: 8}
	up1 := nn.NewConvTranspose2D(start, 4, 4, 2, 1, math.Sqrt2, r)
	up2 := nn.NewConvTranspose2D(up1.OutShape(), 1, 4, 2, 1, 1, r)
	g := nn.Sequential{
		nn.NewLinear(16, start.Len(), math.Sqrt2, r), nn.NewBatchNorm(start.C), nn.ReLU(),
		up1, nn.NewBatchNorm(up1.OutShape().C), nn.ReLU(),
		up2, nn.Tanh(),
	}
	images := g.Forward(randDense(r, 5, 16), true)
	rows, cols := images.Dims()
	fmt.Println(up1.OutShape(), up2.OutShape(), rows, cols)
	// Output: 14×14×4 28×28×1 5 784
}

// A discriminator's first layer: 28×28 grey images to a 14×14 map of 16
// channels.
func ExampleConv2D() {
	r := rand.New(rand.NewPCG(1, 2))
	conv := nn.NewConv2D(nn.Shape{H: 28, W: 28, C: 1}, 16, 4, 2, 1, math.Sqrt2, r)
	y := conv.Forward(mat.NewDense(3, 784, nil), false)
	rows, cols := y.Dims()
	fmt.Println(conv.OutShape(), rows, cols)
	// Output: 14×14×16 3 3136
}
