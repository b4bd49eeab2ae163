package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/tensor"

	"go.uber.org/zap"
	"gonum.org/v1/gonum/mat"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/examples/internal/judge"
	"github.com/tensorfeed/tensorfeed/examples/internal/nn"
	"github.com/tensorfeed/tensorfeed/examples/internal/plot"
	"github.com/tensorfeed/tensorfeed/examples/internal/progress"
	imgrid "github.com/tensorfeed/tensorfeed/internal/grid"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

type config struct {
	DataDir     string
	OutDir      string
	Steps       int
	BatchSize   int
	NoiseDim    int
	Width       int // channels of the generator's last and the discriminator's first hidden layer; the others have twice as many
	LR          float64
	Beta1       float64 // Adam's first-moment decay; 0.5 is the usual choice for GANs
	Smooth      float64 // the discriminator's target for real images (one-sided label smoothing)
	Dropout     float64 // dropout rate of the discriminator's last hidden layer
	EMA         float64 // decay of the moving average of the generator's weights that draws the samples
	SampleEvery int
	LogEvery    int
	Seed        uint64
	JudgeEpochs int // epochs of the classifier that scores the generated digits; 0: no score
	TrainLimit  int // use only the first TrainLimit training images; 0 means all
	Prefetch    int

	Log      *zap.Logger
	PipeLog  *zap.Logger
	Progress io.Writer
}

func defaultConfig() config {
	return config{
		DataDir:     cli.RepoPath("data/mnist"),
		OutDir:      "out/gan",
		Steps:       2000,
		BatchSize:   64,
		NoiseDim:    100,
		Width:       16,
		LR:          1e-3,
		Beta1:       0.5,
		Smooth:      0.9,
		Dropout:     0,
		EMA:         0.995,
		SampleEvery: 500,
		LogEvery:    100,
		Seed:        1,
		JudgeEpochs: 2,
		Prefetch:    4,
	}
}

type result struct {
	Steps        int
	DLoss, GLoss float64 // means over the last LogEvery steps
	Real         string  // PNG of a real batch
	Generated    string  // PNG of the final samples
	Snapshots    []string
	LossPlot     string // PNG of both losses per step
	AccPlot      string // PNG of the discriminator's accuracy per step
	RatePlot     string // PNG of the real images fed per second, per step
	Stats        pipeline.Stats
	Readable     float64 // share of the generated digits the judge reads with probability >= 0.9
	RealReadable float64 // the same share of real test digits
}

// judged is how many generated digits are scored, in batches of 64 (the
// averaged generator's batch normalisation uses its batch's statistics).
const judged = 1024

// targets are the discriminator's labels, the same for every sample: 1 for
// a real image, 0 for a generated one (PaddlePaddle's reader_creator_bool).
type targets struct{ Real, Fake float32 }

// gsample is one composed sample: a real image, a noise vector and the
// targets.
type gsample = pipeline.Tuple3[mnist.Sample, []float32, targets]

// symmetric maps a pixel byte x to x/255*2 - 1, in [-1, 1].
var symmetric = func() (t [256]float32) {
	for x := range t {
		t[x] = float32(float64(x)/255*2 - 1)
	}
	return t
}()

// newSink describes the four tensors of a batch: a sample of three parts
// has its fields written by hand (sink.Of is for a struct's tags).
func newSink(batchSize, noiseDim int) *sink.Sink[gsample] {
	return sink.New(batchSize,
		[]sink.Field[gsample]{
			sink.Float32("image", []int{mnist.Pixels}, func(s gsample, dst []float32) {
				for i, p := range s.A.Image {
					dst[i] = symmetric[p] // [-1, 1], the generator's tanh range
				}
			}),
			// Slice checks every noise vector's length against noiseDim.
			sink.Slice("noise", []int{noiseDim}, func(s gsample) []float32 { return s.B }),
		},
		[]sink.Field[gsample]{
			sink.Float32("real_label", nil, func(s gsample, dst []float32) { dst[0] = s.C.Real }),
			sink.Float32("fake_label", nil, func(s gsample, dst []float32) { dst[0] = s.C.Fake }),
		})
}

// newPipe composes the three readers and turns them into batches of
// tensors. The images are the training set in memory, a new order every
// epoch (a shuffle by index); with TrainLimit, its first TrainLimit
// samples.
func newPipe(ctx context.Context, cfg config, s *sink.Sink[gsample]) (*pipeline.Pipe[*tensor.Batch], int, error) {
	train, err := mnist.Train(cfg.DataDir).Load(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("MNIST training set (run from the repository root, or pass -data): %w", err)
	}
	var set source.Indexed[mnist.Sample] = train
	if n := cfg.TrainLimit; n > 0 && n < train.Len() {
		first := make([]mnist.Sample, n)
		for i := range first {
			first[i], _ = train.Get(i)
		}
		set = source.IndexSlice(first)
	}
	n := set.Len()
	images := pipeline.From(source.ReadIndexed(set, source.ShuffleIndex(cfg.Seed))).Named("mnist")
	noise := source.Uniform(cfg.NoiseDim, -1, 1, cfg.Seed+1)
	labels := source.Constant(targets{Real: 1, Fake: 0}, -1)
	composed := pipeline.Zip3(images, noise, labels, pipeline.Shortest()).Named("zip3")
	return pipeline.Tensorize(composed, s, batch.Drop).Buffered(cfg.Prefetch).Named("prefetch"), n / cfg.BatchSize, nil
}

// gan holds the two networks and their optimisers.
type gan struct {
	g, d       nn.Sequential
	avg        nn.Sequential // the generator with the moving average of g's weights
	ema        float64
	steps      int
	dIn        *nn.Conv2D // the discriminator's first layer
	gOpt, dOpt *nn.Adam
	ones       []float64
	grad       *mat.Dense
}

// newGAN builds a small DCGAN (Radford et al., 2015). The generator turns
// a noise vector into a 7×7 map of 2·Width channels, which two transposed
// convolutions (4×4 kernels, stride 2) enlarge to 14×14×Width and then to
// the 28×28 image; batch normalisation and ReLU between them, tanh at the
// end. The discriminator mirrors it with strided convolutions and leaky
// ReLU, and a linear layer gives one logit per image.
func newGAN(cfg config) *gan {
	img := nn.Shape{H: mnist.Rows, W: mnist.Cols, C: 1}
	w := cfg.Width
	r := source.NewRand(cfg.Seed, 0, -4)
	dIn := nn.NewConv2D(img, w, 4, 2, 1, math.Sqrt2, r)
	down := nn.NewConv2D(dIn.OutShape(), 2*w, 4, 2, 1, math.Sqrt2, r)
	return &gan{
		g:   newGenerator(cfg, img),
		avg: newGenerator(cfg, img), // the same seed: the same weights
		ema: cfg.EMA,
		d: nn.Sequential{
			dIn, nn.LeakyReLU(0.2),
			down, nn.NewBatchNorm(2 * w), nn.LeakyReLU(0.2),
			nn.NewDropout(cfg.Dropout, source.NewRand(cfg.Seed, 0, -3)),
			nn.NewLinear(down.OutShape().Len(), 1, 1, r),
		},
		dIn:  dIn,
		gOpt: &nn.Adam{LR: cfg.LR, Beta1: cfg.Beta1},
		dOpt: &nn.Adam{LR: cfg.LR, Beta1: cfg.Beta1},
	}
}

func newGenerator(cfg config, img nn.Shape) nn.Sequential {
	r := source.NewRand(cfg.Seed, 0, -2)
	w := cfg.Width
	start := nn.Shape{H: img.H / 4, W: img.W / 4, C: 2 * w}
	in := nn.NewLinear(cfg.NoiseDim, start.Len(), 1, r)
	in.NoInputGrad = true
	up1 := nn.NewConvTranspose2D(start, w, 4, 2, 1, math.Sqrt2, r)
	up2 := nn.NewConvTranspose2D(up1.OutShape(), img.C, 4, 2, 1, 1, r)
	return nn.Sequential{
		in, nn.NewBatchNorm(start.C), nn.ReLU(),
		up1, nn.NewBatchNorm(w), nn.ReLU(),
		up2, nn.Tanh(),
	}
}

// step trains the discriminator on a real and a generated batch, then the
// generator to fool it (the non-saturating loss: generated images labelled
// real). It returns both losses and the discriminator's accuracy on the two
// batches (a real image scored above 0, a generated one below).
func (m *gan) step(real, z *mat.Dense, realT, fakeT []float64) (dLoss, gLoss, dAcc float64) {
	if len(m.ones) != len(realT) {
		m.ones = make([]float64, len(realT))
		for i := range m.ones {
			m.ones[i] = 1
		}
	}
	// Discriminator: real images towards realT, generated ones towards fakeT.
	m.dIn.NoInputGrad = true // the images' gradient is not needed here
	nn.ZeroGrad(m.d.Params())
	realOut := m.d.Forward(real, true)
	right := countWhere(realOut, func(v float64) bool { return v > 0 })
	lr, g := nn.BCEWithLogits(realOut, realT, m.grad)
	m.d.Backward(g)
	fake := m.g.Forward(z, true)
	fakeOut := m.d.Forward(fake, true)
	right += countWhere(fakeOut, func(v float64) bool { return v < 0 })
	lf, g := nn.BCEWithLogits(fakeOut, fakeT, g)
	m.d.Backward(g)
	m.dOpt.Step(m.d.Params())

	// Generator: the same generated batch, through the updated
	// discriminator, towards "real"; the gradient flows back through D into G.
	m.dIn.NoInputGrad = false
	nn.ZeroGrad(m.g.Params())
	lg, g := nn.BCEWithLogits(m.d.Forward(fake, true), m.ones, g)
	m.g.Backward(m.d.Backward(g))
	m.gOpt.Step(m.g.Params())
	m.grad = g
	// The average starts fast (decay (1+t)/(10+t)) so that it follows the
	// generator's first, large changes.
	m.steps++
	nn.Average(m.avg.Params(), m.g.Params(), min(m.ema, float64(1+m.steps)/float64(10+m.steps)))
	return (lr + lf) / 2, lg, float64(right) / float64(2*len(realT))
}

// countWhere counts the elements of a column of logits for which ok holds.
func countWhere(logits *mat.Dense, ok func(float64) bool) int {
	n := 0
	for _, v := range logits.RawMatrix().Data {
		if ok(v) {
			n++
		}
	}
	return n
}

// sampleGrid renders the averaged generator's output for the fixed noise
// z. Its batch normalisation uses the statistics of z's batch, as in
// training: the averaged weights have no moving averages of their own.
func (m *gan) sampleGrid(z *mat.Dense, path string) error {
	out := m.avg.Forward(z, true)
	n, _ := out.Dims()
	grid := &imgrid.Grid{H: mnist.Rows, W: mnist.Cols, Channels: 1, Cols: 8, Scale: 2}
	for i := 0; i < n; i++ {
		grid.AddFloat64(out.RawRowView(i), -1, 1)
	}
	return grid.WritePNG(path)
}

func run(ctx context.Context, cfg config, out io.Writer) (*result, error) {
	// The output folder is checked first: a bad path fails now, not
	// after the training whose grids it would have held.
	if err := cli.WritableDir("out", cfg.OutDir); err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.PipeLog == nil {
		cfg.PipeLog = zap.NewNop()
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	ctx = tensorfeed.WithLogger(ctx, cfg.PipeLog)
	s := newSink(cfg.BatchSize, cfg.NoiseDim)
	pipe, perEpoch, err := newPipe(ctx, cfg, s)
	if err != nil {
		return nil, err
	}
	if perEpoch == 0 {
		return nil, fmt.Errorf("fewer training images than one batch of %d", cfg.BatchSize)
	}
	m := newGAN(cfg)
	cfg.Log.Info("gan", zap.Int("steps", cfg.Steps), zap.Int("batches_per_epoch", perEpoch),
		zap.Int("generator_params", nn.NumParams(m.g.Params())), zap.Int("discriminator_params", nn.NumParams(m.d.Params())),
		zap.Stringers("data", s.ProvideData()), zap.Stringers("label", s.ProvideLabel()))

	// 64 fixed noise vectors: every snapshot shows the same latent points.
	fixed, err := source.Collect(ctx, pipeline.From(source.Uniform(cfg.NoiseDim, -1, 1, cfg.Seed+2)).Take(64))
	if err != nil {
		return nil, err
	}
	zFixed := mat.NewDense(len(fixed), cfg.NoiseDim, nil)
	for i, v := range fixed {
		for j, x := range v {
			zFixed.Set(i, j, float64(x))
		}
	}

	res := &result{}
	var real, z *mat.Dense
	var realT, fakeT []float64
	var dSum, gSum float64
	dLosses, gLosses := make([]float64, 0, cfg.Steps), make([]float64, 0, cfg.Steps)
	dAccs, rates := make([]float64, 0, cfg.Steps), make([]float64, 0, cfg.Steps)
	last := time.Now()
	var window int
	bar := progress.New(cfg.Progress, "training", cfg.Steps, "steps")
	step := 0
epochs:
	for epoch, pass := range pipe.Epochs(ctx, -1) {
		for ts, err := range pass {
			if err != nil {
				bar.Finish()
				return nil, err
			}
			img, noise := ts.Data[0], ts.Data[1]
			rows := img.Shape[0]
			if step == 0 {
				res.Real = filepath.Join(cfg.OutDir, "real.png")
				grid := &imgrid.Grid{H: mnist.Rows, W: mnist.Cols, Channels: 1, Cols: 8, Scale: 2}
				for i := 0; i < min(rows, 64); i++ {
					grid.AddFloat(img.F32[i*mnist.Pixels:(i+1)*mnist.Pixels], -1, 1)
				}
				if err := grid.WritePNG(res.Real); err != nil {
					return nil, err
				}
			}
			real = nn.FromFloat32(real, rows, mnist.Pixels, img.F32)
			z = nn.FromFloat32(z, rows, cfg.NoiseDim, noise.F32)
			realT, fakeT = realT[:0], fakeT[:0]
			for i := range rows {
				realT = append(realT, cfg.Smooth*float64(ts.Label[0].F32[i]))
				fakeT = append(fakeT, float64(ts.Label[1].F32[i]))
			}
			ts.Release() // real, z and the targets hold copies
			dl, gl, acc := m.step(real, z, realT, fakeT)
			if math.IsNaN(dl) || math.IsNaN(gl) {
				return nil, fmt.Errorf("step %d: loss is NaN", step)
			}
			dSum, gSum, window = dSum+dl, gSum+gl, window+1
			dLosses, gLosses = append(dLosses, dl), append(gLosses, gl)
			now := time.Now()
			dAccs, rates = append(dAccs, acc), append(rates, float64(rows)/now.Sub(last).Seconds())
			last = now
			step++
			bar.Add(1)
			if step%cfg.LogEvery == 0 || step == cfg.Steps {
				res.DLoss, res.GLoss = dSum/float64(window), gSum/float64(window)
				fmt.Fprintf(out, "step %5d (epoch %d): discriminator loss %.3f, generator loss %.3f\n", step, epoch, res.DLoss, res.GLoss)
				dSum, gSum, window = 0, 0, 0
			}
			if cfg.SampleEvery > 0 && step%cfg.SampleEvery == 0 && step < cfg.Steps {
				path := filepath.Join(cfg.OutDir, fmt.Sprintf("step_%05d.png", step))
				if err := m.sampleGrid(zFixed, path); err != nil {
					return nil, err
				}
				res.Snapshots = append(res.Snapshots, path)
				cfg.Log.Info("wrote samples", zap.Int("step", step), zap.String("png", path))
			}
			if step == cfg.Steps {
				break epochs
			}
		}
	}
	elapsed, rate := bar.Finish()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Steps = step
	res.Stats = pipe.Stats()
	fmt.Fprintf(out, "%d steps in %v: %.1f steps/s, %.0f real images/s\n", step, elapsed.Round(time.Millisecond), rate, rate*float64(cfg.BatchSize))
	fmt.Fprintf(out, "pipeline statistics (busy: producing, upstream included; wait: waiting for the training loop):\n%s", res.Stats.Report())
	res.Generated = filepath.Join(cfg.OutDir, "generated.png")
	if err := m.sampleGrid(zFixed, res.Generated); err != nil {
		return nil, err
	}
	res.LossPlot = filepath.Join(cfg.OutDir, "loss.png")
	if err := plot.Lines(res.LossPlot, "GAN losses", "step", "binary cross-entropy",
		plot.Series{Name: "discriminator", Y: dLosses}, plot.Series{Name: "generator", Y: gLosses}); err != nil {
		return nil, err
	}
	res.AccPlot = filepath.Join(cfg.OutDir, "accuracy.png")
	if err := plot.Lines(res.AccPlot, "discriminator accuracy (0.5: it cannot tell real from generated)", "step",
		"accuracy on a real and a generated batch", plot.Series{Name: "discriminator", Y: dAccs}); err != nil {
		return nil, err
	}
	res.RatePlot = filepath.Join(cfg.OutDir, "samples_per_second.png")
	if err := plot.Lines(res.RatePlot, "training throughput", "step", "real images per second",
		plot.Series{Name: "images/s", Y: rates}); err != nil {
		return nil, err
	}
	if cfg.JudgeEpochs > 0 {
		if err := score(ctx, cfg, m, res, out); err != nil {
			return nil, err
		}
	}
	cfg.Log.Info("wrote samples", zap.Int("step", step), zap.String("png", res.Generated), zap.String("real", res.Real),
		zap.String("losses", res.LossPlot), zap.String("accuracy", res.AccPlot), zap.String("rate", res.RatePlot))
	return res, nil
}

// score trains the judge (examples/mnist's classifier) and prints the share
// of 1,024 generated digits, from new noise, that it reads with a
// probability of at least 0.9, beside the same share of real test digits.
func score(ctx context.Context, cfg config, m *gan, res *result, out io.Writer) error {
	j, err := judge.Train(ctx, cfg.DataDir, cfg.JudgeEpochs, cfg.Seed)
	if err != nil {
		return err
	}
	noise, err := source.Collect(ctx, pipeline.From(source.Uniform(cfg.NoiseDim, -1, 1, cfg.Seed+3)).Take(judged))
	if err != nil {
		return err
	}
	const batch = 64
	images := mat.NewDense(judged, mnist.Pixels, nil)
	z := mat.NewDense(batch, cfg.NoiseDim, nil)
	for i := 0; i < judged; i += batch {
		for r := range batch {
			for c, v := range noise[i+r] {
				z.Set(r, c, float64(v))
			}
		}
		images.Slice(i, i+batch, 0, mnist.Pixels).(*mat.Dense).Copy(m.avg.Forward(z, true))
	}
	var per [10]int
	res.Readable, per = j.Readable(images, 0.9)
	real := mat.NewDense(judged, mnist.Pixels, nil)
	i := 0
	for s, err := range mnist.Test(cfg.DataDir).All(ctx) {
		if err != nil {
			return err
		}
		for k, p := range s.Image {
			real.Set(i, k, float64(symmetric[p]))
		}
		if i++; i == judged {
			break
		}
	}
	res.RealReadable, _ = j.Readable(real.Slice(0, i, 0, mnist.Pixels).(*mat.Dense), 0.9)
	fmt.Fprintf(out, "readable: %.2f of %d generated digits (a classifier of test accuracy %.4f gives one digit a probability >= 0.9; per digit %v); real test digits: %.2f\n",
		res.Readable, judged, j.Accuracy, per, res.RealReadable)
	return nil
}
