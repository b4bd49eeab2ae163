// Package judge scores generated digits with a classifier trained the way
// examples/mnist trains its model: the 784-128-10 perceptron with a ReLU,
// softmax cross-entropy and Adam (learning rate 2e-3, times 0.4 after every
// epoch), on the MNIST training set normalised to zero mean and unit
// variance, fed by a tensorfeed pipeline. A generated digit is readable
// when the classifier gives one class a probability of at least 0.9: the
// measure examples/gan prints for its samples.
//
// A perceptron trained on digits alone is sure of things that are no
// digit (it calls six in ten images of uniform noise a 3 with 0.9), which
// would count scribbles as readable. So each batch carries a quarter more
// images that are none (uniform noise, sparse dots, two digits of the
// batch drawn over each other) with the uniform distribution as their
// target (outlier exposure, Hendrycks et al. 2019): the judge learns to be
// unsure of what is not one digit, while it reads the test digits as well
// as before.
package judge

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/examples/internal/nn"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// The mean and standard deviation of the MNIST training pixels in [0, 1]
// (examples/mnist's normalisation).
const pixelMean, pixelStd = 0.1307, 0.3081

// Judge is a trained digit classifier.
type Judge struct {
	model    nn.Sequential
	Accuracy float64 // on the 10,000 test digits
	x        *mat.Dense
}

// Train trains a Judge for epochs passes over the MNIST training set in
// dataDir (shuffled by index with seed) and measures its test accuracy.
func Train(ctx context.Context, dataDir string, epochs int, seed uint64) (*Judge, error) {
	const batchSize, hidden = 64, 128
	table, err := mnist.Train(dataDir).Load(ctx)
	if err != nil {
		return nil, fmt.Errorf("judge: MNIST training set: %w", err)
	}
	scale := sink.Scale("image", -pixelMean/pixelStd, (1-pixelMean)/pixelStd)
	feed := pipeline.Tensorize(pipeline.From(source.ReadIndexed(table, source.ShuffleIndex(seed))).Named("judge"),
		sink.Of[mnist.Sample](batchSize, scale), batch.Drop).Buffered(2)

	r := source.NewRand(seed, 0, -2)
	first := nn.NewLinear(mnist.Pixels, hidden, math.Sqrt2, r)
	first.NoInputGrad = true // its input is data
	j := &Judge{model: nn.Sequential{first, nn.ReLU(), nn.NewLinear(hidden, 10, 1, r)}}
	params := j.model.Params()
	opt := &nn.Adam{LR: 2e-3}
	var grad *mat.Dense
	labels := make([]int, 0, batchSize+outliers)
	for epoch, pass := range feed.Epochs(ctx, epochs) {
		opt.LR = 2e-3 * math.Pow(0.4, float64(epoch))
		step := 0
		for t, err := range pass {
			if err != nil {
				return nil, fmt.Errorf("judge: %w", err)
			}
			img, lbl := t.Data[0], t.Label[0]
			rows := img.Shape[0]
			j.x = nn.FromFloat32(j.x, rows+outliers, mnist.Pixels, append(img.F32[:rows*mnist.Pixels:rows*mnist.Pixels], make([]float32, outliers*mnist.Pixels)...))
			labels = labels[:0]
			for _, l := range lbl.I32 {
				labels = append(labels, int(l))
			}
			t.Release()
			addOutliers(j.x, rows, source.NewRand(seed, epoch, step))
			for range outliers {
				labels = append(labels, -1) // the uniform target
			}
			step++
			nn.ZeroGrad(params)
			_, grad = nn.SoftmaxCrossEntropy(j.model.Forward(j.x, true), labels, grad)
			j.model.Backward(grad)
			opt.Step(params)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	test := pipeline.Tensorize(pipeline.From[mnist.Sample](mnist.Test(dataDir)), sink.Of[mnist.Sample](1000, scale), batch.Keep)
	right, n := 0, 0
	var pred []int
	for t, err := range test.All(ctx) {
		if err != nil {
			return nil, fmt.Errorf("judge: MNIST test set: %w", err)
		}
		img := t.Data[0]
		j.x = nn.FromFloat32(j.x, img.Shape[0], mnist.Pixels, img.F32)
		pred = nn.Argmax(j.model.Forward(j.x, false), pred)
		for i, l := range t.Label[0].I32 {
			if pred[i] == int(l) {
				right++
			}
		}
		n += img.Shape[0]
		t.Release()
	}
	if n == 0 {
		return nil, fmt.Errorf("judge: no test digits")
	}
	j.Accuracy = float64(right) / float64(n)
	return j, nil
}

// outliers is the number of images that are no digit added to each batch.
const outliers = 16

// addOutliers writes the images that are no digit into the rows of x after
// the first n (the batch's digits, normalised): uniform noise, sparse dots
// and the brighter of two of the batch's digits at each pixel.
func addOutliers(x *mat.Dense, n int, r *rand.Rand) {
	rows, cols := x.Dims()
	lo, hi := -pixelMean/pixelStd, (1-pixelMean)/pixelStd
	for i := n; i < rows; i++ {
		row := x.RawRowView(i)
		switch (i - n) % 3 {
		case 0:
			for k := range cols {
				row[k] = lo + r.Float64()*(hi-lo)
			}
		case 1:
			density := 0.05 + 0.25*r.Float64()
			for k := range cols {
				row[k] = lo
				if r.Float64() < density {
					row[k] = hi
				}
			}
		default:
			a, b := x.RawRowView(r.IntN(n)), x.RawRowView(r.IntN(n))
			for k := range cols {
				row[k] = max(a[k], b[k])
			}
		}
	}
}

// Readable returns the share of the images (one per row, 784 pixels in
// [-1, 1], as a tanh generator makes them) that the classifier labels with
// a probability of at least minProb, and how many of those it gives each
// digit.
func (j *Judge) Readable(images *mat.Dense, minProb float64) (share float64, perDigit [10]int) {
	rows, cols := images.Dims()
	if rows == 0 {
		return 0, perDigit
	}
	x := mat.NewDense(rows, cols, nil)
	for i := range rows {
		for k := range cols {
			// [-1, 1] to [0, 1], then the training normalisation.
			x.Set(i, k, ((images.At(i, k)+1)/2-pixelMean)/pixelStd)
		}
	}
	logits := j.model.Forward(x, false)
	readable := 0
	for i := range rows {
		row := logits.RawRowView(i)
		best, top := 0, math.Inf(-1)
		for c, v := range row {
			if v > top {
				best, top = c, v
			}
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(v - top)
		}
		if 1/sum >= minProb {
			readable++
			perDigit[best]++
		}
	}
	return float64(readable) / float64(rows), perDigit
}
