package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SoftmaxCrossEntropy returns the mean over the batch of the cross-entropy
// between softmax(logits) and the integer labels, and writes its gradient
// with respect to the logits into grad (reallocated when its shape does not
// match; pass nil the first time). A label of -1 asks for the uniform
// distribution over the classes: the target of an input that is none of
// them (outlier exposure), which teaches the model to be unsure of it. It
// panics on a label out of range.
func SoftmaxCrossEntropy(logits *mat.Dense, labels []int, grad *mat.Dense) (float64, *mat.Dense) {
	n, k := logits.Dims()
	if len(labels) != n {
		panic(fmt.Sprintf("nn.SoftmaxCrossEntropy: %d labels for %d rows", len(labels), n))
	}
	grad = buffer(grad, n, k)
	z, g := raw(logits), raw(grad)
	inv := 1 / float64(n)
	loss := 0.0
	for i, y := range labels {
		if y < -1 || y >= k {
			panic(fmt.Sprintf("nn.SoftmaxCrossEntropy: label %d out of [0, %d)", y, k))
		}
		row, grow := z[i*k:(i+1)*k], g[i*k:(i+1)*k]
		m := row[0]
		for _, v := range row[1:] {
			m = max(m, v)
		}
		sum := 0.0
		for j, v := range row {
			e := math.Exp(v - m)
			grow[j] = e
			sum += e
		}
		for j := range grow {
			grow[j] *= inv / sum
		}
		if y >= 0 {
			loss += math.Log(sum) + m - row[y]
			grow[y] -= inv
			continue
		}
		mean := 0.0
		for j, v := range row {
			mean += v
			grow[j] -= inv / float64(k)
		}
		loss += math.Log(sum) + m - mean/float64(k)
	}
	return loss * inv, grad
}

// BCEWithLogits returns the mean binary cross-entropy between sigmoid(logits)
// and the targets (one per row of an n×1 logits matrix, each in [0, 1]), in
// the numerically stable form, and writes the gradient with respect to the
// logits into grad (reallocated as needed).
func BCEWithLogits(logits *mat.Dense, targets []float64, grad *mat.Dense) (float64, *mat.Dense) {
	n, k := logits.Dims()
	if k != 1 || len(targets) != n {
		panic(fmt.Sprintf("nn.BCEWithLogits: logits %d×%d with %d targets", n, k, len(targets)))
	}
	grad = buffer(grad, n, 1)
	z, g := raw(logits), raw(grad)
	inv := 1 / float64(n)
	loss := 0.0
	for i, t := range targets {
		x := z[i]
		// log(1+e^x) - t·x, computed without overflow.
		loss += max(x, 0) - t*x + math.Log1p(math.Exp(-math.Abs(x)))
		g[i] = (sigmoid(x) - t) * inv
	}
	return loss * inv, grad
}

// Argmax returns, for each row of m, the index of its largest element.
func Argmax(m *mat.Dense, dst []int) []int {
	n, k := m.Dims()
	dst = dst[:0]
	v := raw(m)
	for i := 0; i < n; i++ {
		row := v[i*k : (i+1)*k]
		best := 0
		for j, x := range row {
			if x > row[best] {
				best = j
			}
		}
		dst = append(dst, best)
	}
	return dst
}
