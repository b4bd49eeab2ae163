package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/tensor"

	"go.uber.org/zap"
	"gonum.org/v1/gonum/mat"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/examples/internal/nn"
	"github.com/tensorfeed/tensorfeed/examples/internal/plot"
	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// config is everything a run depends on; main fills it from flags and the
// test passes a small one.
type config struct {
	DataDir    string
	Epochs     int
	BatchSize  int
	Hidden     int
	LR         float64 // Adam's learning rate in the first epoch
	LRDecay    float64 // multiplies the learning rate after every epoch
	Prefetch   int     // tensors assembled ahead of the training loop
	Seed       uint64
	TrainLimit int    // use only the first TrainLimit training samples; 0 means all
	TestLimit  int    // test samples; 0 means all
	PlotDir    string // where the PNG plots go; "" for none
	PlotEvery  int    // steps per point of the plots (loss, accuracy and samples/s averaged over them)

	Log      *zap.Logger
	PipeLog  *zap.Logger // the logger of the passes (tensorfeed.WithLogger): one entry per epoch, per pass at debug level
	Progress io.Writer   // where progress bars go (drawn on a terminal, silent elsewhere); nil for none
}

// fillDefaults sets the loggers and the progress writer a config leaves
// nil to ones that discard.
func (c *config) fillDefaults() {
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	if c.PipeLog == nil {
		c.PipeLog = zap.NewNop()
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

func defaultConfig() config {
	return config{
		DataDir:   cli.RepoPath("data/mnist"),
		Epochs:    3,
		BatchSize: 64,
		Hidden:    128,
		LR:        2e-3,
		LRDecay:   0.4,
		Prefetch:  4,
		Seed:      1,
		PlotDir:   filepath.Join(os.TempDir(), "tensorfeed-mnist"),
		PlotEvery: 50,
	}
}

// result is what a run measured.
type result struct {
	EpochLoss     []float64 // mean training loss of every epoch
	TrainRate     []float64 // training samples per second of every epoch
	TestAccuracy  float64
	TestSamples   int
	TrainSamples  int // per epoch
	PipelineStats pipeline.Stats
	Curve         curve    // per PlotEvery steps
	Plots         []string // the PNG files written
}

// curve holds the training's measures averaged over windows of steps.
type curve struct {
	Step, Loss, Accuracy, Rate []float64
}

// plotEvery returns the steps per point of the curve.
func plotEvery(cfg config) int { return max(cfg.PlotEvery, 1) }

// window accumulates the steps of one point of the curve.
type window struct {
	steps, samples, right int
	loss                  float64
	start                 time.Time
}

// add ends the window at step if it holds every steps, appending its
// means to the curve.
func (w *window) add(c *curve, step, every int, now time.Time) {
	if w.steps < every {
		return
	}
	c.Step = append(c.Step, float64(step))
	c.Loss = append(c.Loss, w.loss/float64(w.steps))
	c.Accuracy = append(c.Accuracy, float64(w.right)/float64(w.samples))
	c.Rate = append(c.Rate, float64(w.samples)/now.Sub(w.start).Seconds())
	*w = window{start: now}
}

// The mean and standard deviation of the MNIST training pixels (in [0, 1]):
// the pixels are normalised to zero mean and unit variance, which trains
// faster than raw [0, 1] values.
const pixelMean, pixelStd = 0.1307, 0.3081

// normTable maps a pixel byte to its normalised value.
var normTable = func() (t [256]float32) {
	for x := range t {
		t[x] = float32((float64(x)/255 - pixelMean) / pixelStd)
	}
	return t
}()

// fillImage writes the sample's normalised pixels into dst.
func fillImage(s mnist.Sample, dst []float32) {
	for i, p := range s.Image {
		dst[i] = normTable[p]
	}
}

// newSink describes the tensors the model reads: "image" float32[B 784]
// and "label" int32[B].
func newSink(batchSize int) *sink.Sink[mnist.Sample] {
	return sink.New(batchSize,
		[]sink.Field[mnist.Sample]{
			sink.Float32("image", []int{mnist.Pixels}, fillImage),
		},
		[]sink.Field[mnist.Sample]{
			sink.Int32("label", nil, mnist.FillLabelInt32),
		})
}

// trainPipe builds the training pipeline:
//
//	MNIST files -> cache (the files are read and un-gzipped once) -> shuffle
//	(whole set, new order every epoch) -> batch -> tensors (normalised
//	pixels, labels) -> prefetch
func trainPipe(cfg config, s *sink.Sink[mnist.Sample]) (*pipeline.Pipe[*tensor.Batch], int, error) {
	cfg.fillDefaults()
	ds := mnist.Train(cfg.DataDir)
	n, err := ds.Len()
	if err != nil {
		return nil, 0, fmt.Errorf("MNIST training set (set -data to the folder of the MNIST IDX files): %w", err)
	}
	p := pipeline.From[mnist.Sample](ds, pipeline.WithName("mnist"))
	if cfg.TrainLimit > 0 && cfg.TrainLimit < n {
		p, n = p.Take(cfg.TrainLimit), cfg.TrainLimit
	}
	p = p.Cache().Shuffle(n, cfg.Seed)
	t := pipeline.Tensorize(p, s, batch.Drop).Buffered(cfg.Prefetch).Named("prefetch")
	return t, n / cfg.BatchSize * cfg.BatchSize, nil
}

// newModel returns the 784-hidden-10 perceptron.
func newModel(hidden int, seed uint64) nn.Sequential {
	r := source.NewRand(seed, 0, -2)
	first := nn.NewLinear(mnist.Pixels, hidden, math.Sqrt2, r)
	first.NoInputGrad = true // its input is data
	return nn.Sequential{first, nn.ReLU(), nn.NewLinear(hidden, 10, 1, r)}
}

func run(ctx context.Context, cfg config, out io.Writer) (*result, error) {
	cfg.fillDefaults()
	ctx = tensorfeed.WithLogger(ctx, cfg.PipeLog)
	s := newSink(cfg.BatchSize)
	pipe, perEpoch, err := trainPipe(cfg, s)
	if err != nil {
		return nil, err
	}
	model := newModel(cfg.Hidden, cfg.Seed)
	params := model.Params()
	cfg.Log.Info("model", zap.Int("hidden", cfg.Hidden), zap.Int("parameters", nn.NumParams(params)),
		zap.Stringers("data", s.ProvideData()), zap.Stringers("label", s.ProvideLabel()))

	res := &result{TrainSamples: perEpoch}
	opt := &nn.Adam{LR: cfg.LR}
	var x, grad *mat.Dense
	var pred []int
	labels := make([]int, 0, cfg.BatchSize)
	every := plotEvery(cfg)
	win, step := window{start: time.Now()}, 0
	for epoch, pass := range pipe.Epochs(ctx, cfg.Epochs) {
		bar := progress.New(cfg.Progress, fmt.Sprintf("epoch %d/%d", epoch+1, cfg.Epochs), int64(perEpoch), "samples", progress.Quiet())
		before := pipe.Stats()
		lossSum, batches := 0.0, 0
		for ts, err := range pass {
			if err != nil {
				bar.Finish()
				return nil, err
			}
			img, lbl := ts.Data[0], ts.Label[0]
			rows := img.Len()
			x = nn.FromFloat32(x, rows, mnist.Pixels, img.F32)
			labels = labels[:0]
			for _, l := range lbl.I32 {
				labels = append(labels, int(l))
			}
			nn.ZeroGrad(params)
			logits := model.Forward(x, true)
			pred = nn.Argmax(logits, pred)
			for i, l := range labels {
				if pred[i] == l {
					win.right++
				}
			}
			var loss float64
			loss, grad = nn.SoftmaxCrossEntropy(logits, labels, grad)
			model.Backward(grad)
			opt.Step(params)
			lossSum += loss
			batches++
			step++
			win.steps, win.samples, win.loss = win.steps+1, win.samples+rows, win.loss+loss
			win.add(&res.Curve, step, every, time.Now())
			bar.Add(rows)
			ts.Release() // the next batch may reuse this memory
		}
		elapsed, rate := bar.Finish()
		if batches == 0 {
			return nil, fmt.Errorf("epoch %d: no batch (fewer samples than the batch size?)", epoch)
		}
		st := pipe.Stats().Sub(before)
		loss := lossSum / float64(batches)
		res.EpochLoss = append(res.EpochLoss, loss)
		res.TrainRate = append(res.TrainRate, rate)
		last := st.Last()
		fmt.Fprintf(out, "epoch %d/%d: loss %.4f, %d samples in %v: %.0f samples/s (lr %.2g); the training loop waited for data %.1f%% of the time\n",
			epoch+1, cfg.Epochs, loss, batches*cfg.BatchSize, elapsed.Round(time.Millisecond), rate, opt.LR,
			100*last.BusyFraction())
		cfg.Log.Debug("epoch stats", zap.Int("epoch", epoch), zap.Array("stages", st))
		opt.LR *= cfg.LRDecay
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	win.add(&res.Curve, step, min(win.steps, 1), time.Now()) // the last steps, fewer than PlotEvery
	res.PipelineStats = pipe.Stats()
	// The report's "waited" is the time the training loop waited for a
	// batch; the steps behind the prefetch run on their own goroutine and
	// share the two cores with training, so their busy times include time
	// spent waiting for a core.
	fmt.Fprintf(out, "pipeline report, %d epochs (busy: producing, upstream included; wait: waiting for the training loop):\n%s",
		cfg.Epochs, res.PipelineStats.Report())

	acc, n, err := evaluate(ctx, cfg, model)
	if err != nil {
		return nil, err
	}
	res.TestAccuracy, res.TestSamples = acc, n
	if cfg.PlotDir != "" {
		if res.Plots, err = writePlots(cfg.PlotDir, plotEvery(cfg), res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// writePlots writes the training curves into dir: loss.png, accuracy.png
// (with the test accuracy as a point at the last step) and
// samples_per_second.png. It returns the files' paths.
func writePlots(dir string, every int, res *result) ([]string, error) {
	c := res.Curve
	if len(c.Step) == 0 {
		return nil, nil // no step
	}
	per := fmt.Sprintf("training step (each point: the mean of %d steps)", every)
	last := c.Step[len(c.Step)-1]
	plots := []struct {
		file, title, ylabel string
		series              []plot.Series
	}{
		{"loss.png", "MNIST training loss", "softmax cross-entropy",
			[]plot.Series{{Name: "training batches", X: c.Step, Y: c.Loss}}},
		{"accuracy.png", "MNIST accuracy", "accuracy", []plot.Series{
			{Name: "training batches", X: c.Step, Y: c.Accuracy},
			{Name: fmt.Sprintf("test set (%.4f)", res.TestAccuracy), X: []float64{last}, Y: []float64{res.TestAccuracy}},
		}},
		{"samples_per_second.png", "MNIST training throughput", "input samples/s (training loop)",
			[]plot.Series{{Name: "samples/s", X: c.Step, Y: c.Rate}}},
	}
	var paths []string
	for _, p := range plots {
		path := filepath.Join(dir, p.file)
		if err := plot.Lines(path, p.title, per, p.ylabel, p.series...); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// evaluate returns the model's accuracy on the test set.
func evaluate(ctx context.Context, cfg config, model nn.Sequential) (float64, int, error) {
	const evalBatch = 1000
	p := pipeline.From[mnist.Sample](mnist.Test(cfg.DataDir), pipeline.WithName("mnist-test"))
	total := 10000
	if cfg.TestLimit > 0 {
		p, total = p.Take(cfg.TestLimit), cfg.TestLimit
	}
	t := pipeline.Tensorize(p, newSink(evalBatch), batch.Keep)
	bar := progress.New(cfg.Progress, "test", int64(total), "samples", progress.Quiet())
	defer bar.Finish()
	var x *mat.Dense
	var pred []int
	right, n := 0, 0
	for ts, err := range t.All(ctx) {
		if err != nil {
			return 0, 0, err
		}
		img, lbl := ts.Data[0], ts.Label[0]
		x = nn.FromFloat32(x, img.Len(), mnist.Pixels, img.F32)
		pred = nn.Argmax(model.Forward(x, false), pred)
		for i, l := range lbl.I32 {
			if pred[i] == int(l) {
				right++
			}
		}
		n += img.Len()
		bar.Add(img.Len())
		ts.Release()
	}
	if n == 0 {
		return 0, 0, fmt.Errorf("no test samples")
	}
	return float64(right) / float64(n), n, nil
}
