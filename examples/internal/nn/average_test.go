package nn_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/nn"
)

func TestAverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	model := nn.Sequential{nn.NewLinear(2, 3, 1, r)}
	avg := nn.Sequential{nn.NewLinear(2, 3, 1, r)}
	want := model.Params()[0].W.At(1, 2)
	for range 500 {
		nn.Average(avg.Params(), model.Params(), 0.98)
	}
	if got := avg.Params()[0].W.At(1, 2); got-want > 1e-4 || want-got > 1e-4 {
		t.Errorf("average %v after 500 steps towards a constant %v", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for models of different shapes")
		}
	}()
	nn.Average(avg.Params(), nn.Sequential{nn.NewLinear(3, 3, 1, r)}.Params(), 0.9)
}

// The moving average follows the weights with a delay.
func ExampleAverage() {
	r := rand.New(rand.NewPCG(1, 1))
	model, avg := nn.NewLinear(1, 1, 1, r), nn.NewLinear(1, 1, 1, r)
	avg.W.W.Set(0, 0, 0)
	for step := 1; step <= 3; step++ {
		model.W.W.Set(0, 0, 1) // an optimiser's step would go here
		nn.Average(avg.Params(), model.Params(), 0.5)
		fmt.Printf("step %d: weight %.3f, average %.3f\n", step, model.W.W.At(0, 0), avg.W.W.At(0, 0))
	}
	// Output:
	// step 1: weight 1.000, average 0.500
	// step 2: weight 1.000, average 0.750
	// step 3: weight 1.000, average 0.875
}
