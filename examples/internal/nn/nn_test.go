package nn_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/tensorfeed/tensorfeed/examples/internal/nn"
)

func randDense(r *rand.Rand, n, k int) *mat.Dense {
	m := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			m.Set(i, j, r.NormFloat64())
		}
	}
	return m
}

// gradCheck compares the analytic gradients of loss(model(x)) with central
// differences, for every parameter element and every input element.
func gradCheck(t *testing.T, model nn.Sequential, x *mat.Dense, loss func(*mat.Dense) (float64, *mat.Dense)) {
	t.Helper()
	params := model.Params()
	nn.ZeroGrad(params)
	_, g := loss(model.Forward(x, true))
	dx := mat.DenseCopyOf(model.Backward(g))

	f := func() float64 {
		l, _ := loss(model.Forward(x, true))
		return l
	}
	const h = 1e-5
	check := func(what string, m *mat.Dense, want *mat.Dense) {
		r, c := m.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				old := m.At(i, j)
				m.Set(i, j, old+h)
				lp := f()
				m.Set(i, j, old-h)
				lm := f()
				m.Set(i, j, old)
				num := (lp - lm) / (2 * h)
				got := want.At(i, j)
				if d := math.Abs(num - got); d > 1e-6*math.Max(1, math.Abs(num)+math.Abs(got)) {
					t.Errorf("%s[%d,%d]: analytic %.9g, numeric %.9g", what, i, j, got, num)
				}
			}
		}
	}
	for k, p := range params {
		check(p.Name+"#"+string(rune('0'+k)), p.W, p.G)
	}
	check("x", x, dx)
}

func TestGradientSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		act  func() nn.Layer
	}{
		{"tanh", nn.Tanh},
		{"sigmoid", nn.Sigmoid},
		{"leaky", func() nn.Layer { return nn.LeakyReLU(0.2) }},
		{"relu", nn.ReLU},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := nn.Sequential{nn.NewLinear(5, 7, 1, r), tc.act(), nn.NewLinear(7, 4, 1, r)}
			x := randDense(r, 6, 5)
			labels := []int{0, 3, 1, -1, 2, 0} // -1: the uniform target
			var grad *mat.Dense
			gradCheck(t, model, x, func(z *mat.Dense) (float64, *mat.Dense) {
				l, g := nn.SoftmaxCrossEntropy(z, labels, grad)
				grad = g
				return l, g
			})
		})
	}
}

func TestGradientBCE(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	model := nn.Sequential{nn.NewLinear(4, 6, 1, r), nn.Tanh(), nn.NewLinear(6, 1, 1, r)}
	x := randDense(r, 5, 4)
	targets := []float64{1, 0, 1, 0.5, 0}
	var grad *mat.Dense
	gradCheck(t, model, x, func(z *mat.Dense) (float64, *mat.Dense) {
		l, g := nn.BCEWithLogits(z, targets, grad)
		grad = g
		return l, g
	})
}

func TestSoftmaxCrossEntropyValues(t *testing.T) {
	// Equal logits: loss is log(k) whatever the label.
	z := mat.NewDense(2, 4, []float64{1, 1, 1, 1, -3, -3, -3, -3})
	l, g := nn.SoftmaxCrossEntropy(z, []int{0, 3}, nil)
	if math.Abs(l-math.Log(4)) > 1e-12 {
		t.Errorf("loss = %v, want log 4", l)
	}
	// Gradient of row 0: (0.25 - 1)/2 at the label, 0.25/2 elsewhere.
	if got := g.At(0, 0); math.Abs(got-(-0.375)) > 1e-12 {
		t.Errorf("grad[0,0] = %v", got)
	}
	if got := g.At(0, 1); math.Abs(got-0.125) > 1e-12 {
		t.Errorf("grad[0,1] = %v", got)
	}
	// The uniform target (-1): equal logits are its minimum, log k, with
	// no gradient; logits (2, 0) give log(1+e^-2) + 1 and the gradient
	// p - 1/2.
	if l, g := nn.SoftmaxCrossEntropy(mat.NewDense(1, 4, []float64{1, 1, 1, 1}), []int{-1}, nil); math.Abs(l-math.Log(4)) > 1e-12 || mat.Norm(g, 2) > 1e-12 {
		t.Errorf("uniform target, equal logits: loss %v, gradient %v", l, mat.Formatted(g))
	}
	p := 1 / (1 + math.Exp(-2))
	if l, g := nn.SoftmaxCrossEntropy(mat.NewDense(1, 2, []float64{2, 0}), []int{-1}, nil); math.Abs(l-(math.Log1p(math.Exp(-2))+1)) > 1e-12 ||
		math.Abs(g.At(0, 0)-(p-0.5)) > 1e-12 || math.Abs(g.At(0, 1)-(0.5-p)) > 1e-12 {
		t.Errorf("uniform target, logits (2, 0): loss %v, gradient %v", l, mat.Formatted(g))
	}
	// Huge logits do not overflow.
	z = mat.NewDense(1, 2, []float64{1000, 0})
	if l, _ := nn.SoftmaxCrossEntropy(z, []int{0}, nil); l != 0 {
		t.Errorf("confident right answer: loss %v", l)
	}
	if l, _ := nn.SoftmaxCrossEntropy(z, []int{1}, nil); math.Abs(l-1000) > 1e-9 {
		t.Errorf("confident wrong answer: loss %v, want 1000", l)
	}
}

func TestBCEWithLogitsValues(t *testing.T) {
	z := mat.NewDense(3, 1, []float64{0, 800, -800})
	l, _ := nn.BCEWithLogits(z, []float64{1, 1, 1}, nil)
	want := (math.Log(2) + 0 + 800) / 3
	if math.Abs(l-want) > 1e-9 {
		t.Errorf("loss = %v, want %v", l, want)
	}
}

func TestArgmax(t *testing.T) {
	m := mat.NewDense(3, 3, []float64{1, 2, 3, 9, 0, 0, 0, 5, 1})
	got := nn.Argmax(m, nil)
	want := []int{2, 0, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Argmax = %v, want %v", got, want)
		}
	}
}

// twoMoons-like toy problem: three Gaussian blobs in the plane.
func blobs(r *rand.Rand, n int) (*mat.Dense, []int) {
	centers := [][2]float64{{-2, 0}, {2, 0}, {0, 2.5}}
	x := mat.NewDense(n, 2, nil)
	y := make([]int, n)
	for i := range n {
		c := i % 3
		y[i] = c
		x.Set(i, 0, centers[c][0]+0.6*r.NormFloat64())
		x.Set(i, 1, centers[c][1]+0.6*r.NormFloat64())
	}
	return x, y
}

func TestTrainingReducesLoss(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  nn.Optimizer
	}{
		{"adam", &nn.Adam{LR: 0.01}},
		{"sgd", &nn.SGD{LR: 0.1, Momentum: 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			first := nn.NewLinear(2, 16, math.Sqrt2, r)
			first.NoInputGrad = true
			model := nn.Sequential{first, nn.ReLU(), nn.NewLinear(16, 3, 1, r)}
			x, y := blobs(r, 300)
			var grad *mat.Dense
			var start, last float64
			for step := range 200 {
				nn.ZeroGrad(model.Params())
				l, g := nn.SoftmaxCrossEntropy(model.Forward(x, true), y, grad)
				grad = g
				if dx := model.Backward(g); dx != nil {
					t.Fatal("NoInputGrad layer returned an input gradient")
				}
				tc.opt.Step(model.Params())
				if step == 0 {
					start = l
				}
				last = l
			}
			if !(last < start/5) {
				t.Errorf("loss %v -> %v: did not fall by 5x", start, last)
			}
			pred := nn.Argmax(model.Forward(x, false), nil)
			right := 0
			for i := range y {
				if pred[i] == y[i] {
					right++
				}
			}
			if acc := float64(right) / float64(len(y)); acc < 0.95 {
				t.Errorf("training accuracy %.3f < 0.95", acc)
			}
		})
	}
}

func TestNumParams(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	m := nn.Sequential{nn.NewLinear(784, 128, 1, r), nn.ReLU(), nn.NewLinear(128, 10, 1, r)}
	if got, want := nn.NumParams(m.Params()), 784*128+128+128*10+10; got != want {
		t.Errorf("NumParams = %d, want %d", got, want)
	}
}

func TestNewLinearPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewLinear(0, 3) did not panic")
		}
	}()
	nn.NewLinear(0, 3, 1, rand.New(rand.NewPCG(1, 1)))
}

func TestFromFloat32(t *testing.T) {
	m := nn.FromFloat32(nil, 2, 3, []float32{1, 2, 3, 4, 5, 6.5})
	if m.At(1, 2) != 6.5 || m.At(0, 1) != 2 {
		t.Errorf("m = %v", mat.Formatted(m))
	}
	same := nn.FromFloat32(m, 2, 3, []float32{0, 0, 0, 0, 0, 1})
	if same != m || m.At(1, 2) != 1 {
		t.Error("matrix of the same shape not reused")
	}
	if other := nn.FromFloat32(m, 1, 3, []float32{7, 8, 9}); other == m || other.At(0, 2) != 9 {
		t.Error("matrix of another shape reused")
	}
}

func TestDropout(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	d := nn.NewDropout(0.25, r)
	x := mat.NewDense(100, 100, nil)
	for i := 0; i < 100; i++ {
		for j := 0; j < 100; j++ {
			x.Set(i, j, 1)
		}
	}
	if y := d.Forward(x, false); y != x {
		t.Error("inference changed the input")
	}
	y := d.Forward(x, true)
	zeros, sum := 0, 0.0
	for i := 0; i < 100; i++ {
		for j := 0; j < 100; j++ {
			v := y.At(i, j)
			switch v {
			case 0:
				zeros++
			case 1 / 0.75:
			default:
				t.Fatalf("y[%d,%d] = %v", i, j, v)
			}
			sum += v
		}
	}
	if zeros < 2200 || zeros > 2800 {
		t.Errorf("%d of 10000 dropped, want about 2500", zeros)
	}
	if m := sum / 10000; math.Abs(m-1) > 0.05 {
		t.Errorf("mean %v, want about 1 (inverted dropout keeps the expectation)", m)
	}
	// The gradient goes through the same mask.
	dx := d.Backward(x)
	if !mat.Equal(dx, y) {
		t.Error("backward mask differs from forward mask")
	}
}

func TestGradientWithDropout(t *testing.T) {
	// With a fixed mask (p = 0 draws nothing), a dropout layer must not
	// disturb the gradient check.
	r := rand.New(rand.NewPCG(1, 2))
	model := nn.Sequential{nn.NewLinear(3, 5, 1, r), nn.NewDropout(0, r), nn.Tanh(), nn.NewLinear(5, 2, 1, r)}
	x := randDense(r, 4, 3)
	var grad *mat.Dense
	gradCheck(t, model, x, func(z *mat.Dense) (float64, *mat.Dense) {
		l, g := nn.SoftmaxCrossEntropy(z, []int{0, 1, 1, 0}, grad)
		grad = g
		return l, g
	})
}
