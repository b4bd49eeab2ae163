// Package mixargs checks the arguments of a weighted mixture, the same for
// a mixture of random-access datasets (source.Mix) and of streams
// (pipeline.Mix), so both refuse the same mistakes with the same words.
package mixargs

import (
	"fmt"
	"math"
)

// Check panics, naming fn and what, when there is no input, when weights
// are not one positive finite number per input, or when length < 0 (a
// programmer's error); it returns the weights' sum.
func Check(fn, what string, inputs int, weights []float64, length int) float64 {
	if inputs == 0 {
		panic(fmt.Sprintf("%s: no %s", fn, what))
	}
	if len(weights) != inputs {
		panic(fmt.Sprintf("%s: %d weights for %d %ss", fn, len(weights), inputs, what))
	}
	if length < 0 {
		panic(fmt.Sprintf("%s: negative length %d", fn, length))
	}
	sum := 0.0
	for k, w := range weights {
		if !(w > 0) || math.IsInf(w, 0) {
			panic(fmt.Sprintf("%s: weight %d is %v, want a positive finite number", fn, k, w))
		}
		sum += w
	}
	return sum
}
