package mixargs

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	if sum := Check("f", "part", 2, []float64{0.7, 0.3}, 0); math.Abs(sum-1) > 1e-12 {
		t.Fatalf("sum = %v, want 1", sum)
	}
	for _, tc := range []struct {
		inputs  int
		weights []float64
		length  int
		want    string
	}{
		{0, nil, 0, "f: no part"},
		{2, []float64{1}, 0, "f: 1 weights for 2 parts"},
		{1, []float64{1}, -1, "f: negative length -1"},
		{2, []float64{1, 0}, 0, "f: weight 1 is 0, want a positive finite number"},
		{1, []float64{math.NaN()}, 0, "f: weight 0 is NaN"},
		{1, []float64{math.Inf(1)}, 0, "f: weight 0 is +Inf"},
		{1, []float64{-2}, 0, "f: weight 0 is -2"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("Check(%d, %v, %d): panic %v, want one with %q", tc.inputs, tc.weights, tc.length, r, tc.want)
				}
			}()
			Check("f", "part", tc.inputs, tc.weights, tc.length)
		}()
	}
}
