package main

import (
	"context"
	"errors"
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
	"github.com/tensorfeed/tensorfeed/examples/internal/dump"
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
	Threads    int     // goroutines that assemble the tensors
	Seed       uint64
	TrainLimit int    // use only the first TrainLimit training samples; 0 means all
	TestLimit  int    // test samples; 0 means all
	PlotDir    string // where the PNG plots go; "" for none
	PlotEvery  int    // steps per point of the plots (loss, accuracy and samples/s averaged over them)
	Run        dump.Flags

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
		Threads:   1,
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
	Stopped       bool     // -stop-after ended the run: no evaluation, no plots
	Batches       int      // batches the training loop received
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
// faster than raw [0, 1] values. (x/255 - mean)/std is linear in the byte
// x, so sink.Scale maps 0..255 to it: 0 to -mean/std, 255 to (1-mean)/std.
const pixelMean, pixelStd = 0.1307, 0.3081

// newSink describes the tensors the model reads, from the struct tags of
// mnist.Sample: "image" float32[B 784], normalised, and "label" int32[B].
func newSink(batchSize int) *sink.Sink[mnist.Sample] {
	return sink.Of[mnist.Sample](batchSize, sink.Scale("image", -pixelMean/pixelStd, (1-pixelMean)/pixelStd))
}

// loadTrain reads the training set into memory once: a random-access
// table, so that every epoch is a global shuffle by index and a resumed
// run reads nothing it skips. With TrainLimit it holds the first
// TrainLimit samples of the files, and reads no further.
func loadTrain(ctx context.Context, cfg config) (source.Indexed[mnist.Sample], error) {
	ds := mnist.Train(cfg.DataDir)
	if cfg.TrainLimit == 0 {
		t, err := ds.Load(ctx)
		if err != nil {
			return nil, fmt.Errorf("MNIST training set (set -data to the folder of the MNIST IDX files): %w", err)
		}
		return t, nil
	}
	samples := make([]mnist.Sample, 0, cfg.TrainLimit)
	for s, err := range ds.All(ctx) {
		if err != nil {
			return nil, fmt.Errorf("MNIST training set (set -data to the folder of the MNIST IDX files): %w", err)
		}
		samples = append(samples, s)
		if len(samples) == cfg.TrainLimit {
			break
		}
	}
	return source.IndexSlice(samples), nil
}

// trainPipe builds the training pipeline:
//
//	MNIST table (in memory) -> global shuffle by index (a new order every
//	epoch) -> batch -> tensors (normalised pixels, labels; on cfg.Threads
//	goroutines, in order) -> prefetch
//
// Its checkpoint is a few numbers: the epoch, the position in the epoch's
// order and the kinds of the steps. It returns the pipe and the samples
// per epoch.
func trainPipe(ctx context.Context, cfg config, s *sink.Sink[mnist.Sample]) (*pipeline.Pipe[*tensor.Batch], int, error) {
	cfg.fillDefaults()
	table, err := loadTrain(ctx, cfg)
	if err != nil {
		return nil, 0, err
	}
	n := table.Len()
	// The steps' kinds hold what decides the stream (the table's length,
	// the seed, the batch size), so a checkpoint of another program or
	// with other values is refused naming the difference.
	train := source.ReadIndexed(table, source.ShuffleIndex(cfg.Seed))
	p := pipeline.From(train).Named("mnist")
	t := pipeline.Tensorize(p, s, batch.Drop, pipeline.Workers(max(cfg.Threads, 1)))
	return prefetch(t, cfg.Prefetch).Named("prefetch"), n / cfg.BatchSize * cfg.BatchSize, nil
}

// prefetch adds a prefetch of n batches. With n = 0 the step reads on the
// training loop's goroutine; it keeps the kind of a prefetch in the
// pipeline's state, so that a run stopped with one -prefetch resumes with
// any other.
func prefetch(t *pipeline.Pipe[*tensor.Batch], n int) *pipeline.Pipe[*tensor.Batch] {
	if n > 0 {
		return t.Buffered(n)
	}
	return pipeline.Apply(t, func(r source.Reader[*tensor.Batch]) source.Reader[*tensor.Batch] {
		return source.Follow("buffered", r, func(r source.Reader[*tensor.Batch]) source.Reader[*tensor.Batch] { return r })
	})
}

// newModel returns the 784-hidden-10 perceptron.
func newModel(hidden int, seed uint64) nn.Sequential {
	r := source.NewRand(seed, 0, -2)
	first := nn.NewLinear(mnist.Pixels, hidden, math.Sqrt2, r)
	first.NoInputGrad = true // its input is data
	return nn.Sequential{first, nn.ReLU(), nn.NewLinear(hidden, 10, 1, r)}
}

func run(ctx context.Context, cfg config, out io.Writer) (res *result, err error) {
	cfg.fillDefaults()
	// The outputs are checked first: a bad path fails now, not after the
	// training it would have ended.
	plots := cfg.PlotDir
	if cfg.Run.FeedOnly {
		plots = "" // no training, no plots
	}
	if err := errors.Join(cli.WritableDir("plots", plots), cfg.Run.CheckOutputs()); err != nil {
		return nil, err
	}
	ctx = tensorfeed.WithLogger(ctx, cfg.PipeLog)
	s := newSink(cfg.BatchSize)
	pipe, perEpoch, err := trainPipe(ctx, cfg, s)
	if err != nil {
		return nil, err
	}
	// Stop and resume with the public API: the pipeline keeps its own
	// position (the batches the loop received), Checkpoint saves it and
	// EpochsFrom continues from it.
	epochs := pipe.Epochs(ctx, cfg.Epochs)
	var from *pipeline.Checkpoint
	if cfg.Run.Resume != "" {
		if from, err = pipeline.ReadCheckpoint(cfg.Run.Resume); err != nil {
			return nil, fmt.Errorf("-resume: %w", err)
		}
		if epochs, err = pipe.EpochsFrom(ctx, from, cfg.Epochs); err != nil {
			return nil, fmt.Errorf("-resume %s: %w", cfg.Run.Resume, err)
		}
	}
	d, err := dump.Open(cfg.Run.Dump, from != nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := d.Close(); err == nil && cerr != nil {
			res, err = nil, cerr
		}
	}()
	// save writes the checkpoint of the pipeline's position, after the
	// dump, so that the dump on disk never lags behind it. Not under the
	// run's context: a run stopped by a signal still saves.
	save := func() (*pipeline.Checkpoint, error) {
		if err := d.Flush(); err != nil {
			return nil, err
		}
		c, err := pipe.Checkpoint(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		if err := c.WriteFile(cfg.Run.Checkpoint); err != nil {
			return nil, fmt.Errorf("-checkpoint: %w", err)
		}
		return c, nil
	}
	// stopped is the error of a run whose context was cancelled (SIGINT,
	// SIGTERM): the checkpoint of the position reached is written first.
	stopped := func() error {
		e, st := pipe.Position()
		se := &dump.StopError{Epoch: e, Step: st, Cause: context.Cause(ctx)}
		if cfg.Run.Checkpoint != "" {
			if _, err := save(); err != nil {
				return fmt.Errorf("stopped at epoch %d step %d (%v), but the checkpoint was not written: %w", e, st, se.Cause, err)
			}
			se.Checkpoint = cfg.Run.Checkpoint
		}
		return se
	}
	train := !cfg.Run.FeedOnly
	if from != nil {
		fmt.Fprintf(out, "resumed from %s at epoch %d step %d\n", cfg.Run.Resume, from.Epoch, from.Step)
		if train {
			fmt.Fprintln(out, "the model starts fresh: the checkpoint holds the input pipeline's position, not the model's weights")
		}
	}
	model := newModel(cfg.Hidden, cfg.Seed)
	params := model.Params()
	if train {
		cfg.Log.Info("model", zap.Int("hidden", cfg.Hidden), zap.Int("parameters", nn.NumParams(params)),
			zap.Stringers("data", s.ProvideData()), zap.Stringers("label", s.ProvideLabel()))
	}

	res = &result{TrainSamples: perEpoch}
	opt := &nn.Adam{LR: cfg.LR}
	var x, grad *mat.Dense
	var pred []int
	labels := make([]int, 0, cfg.BatchSize)
	every := plotEvery(cfg)
	win, step := window{start: time.Now()}, 0
	for epoch, pass := range epochs {
		bar := progress.New(cfg.Progress, fmt.Sprintf("epoch %d/%d", epoch+1, cfg.Epochs), int64(perEpoch), "samples", progress.Quiet())
		before := pipe.Stats()
		opt.LR = cfg.LR * math.Pow(cfg.LRDecay, float64(epoch))
		lossSum, batches := 0.0, 0
		for ts, err := range pass {
			if err != nil {
				bar.Finish()
				if ctx.Err() != nil {
					return nil, stopped()
				}
				return nil, err
			}
			_, pos := pipe.Position() // ts is the pos-th batch of the epoch, from 1
			if err := d.Write(epoch, pos-1, ts); err != nil {
				ts.Release()
				return nil, err
			}
			img, lbl := ts.Data[0], ts.Label[0]
			rows := img.Shape[0]
			batches++
			step++
			res.Batches++
			bar.Add(rows)
			if train {
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
				win.steps, win.samples, win.loss = win.steps+1, win.samples+rows, win.loss+loss
				win.add(&res.Curve, step, every, time.Now())
			}
			ts.Release() // the next batch may reuse this memory
			// A signal stops the run after the batch it trained on: the
			// checkpoint is the position reached, this batch included.
			if ctx.Err() != nil {
				bar.Finish()
				return nil, stopped()
			}
			if res.Batches == cfg.Run.StopAfter {
				bar.Finish()
				c, err := save()
				if err != nil {
					return nil, err
				}
				data, _ := c.Encode()
				res.Stopped = true
				fmt.Fprintf(out, "stopped after %d batches, at epoch %d step %d; checkpoint: %s (%d bytes)\n",
					res.Batches, c.Epoch, c.Step, cfg.Run.Checkpoint, len(data))
				return res, nil
			}
		}
		elapsed, rate := bar.Finish()
		if cfg.Run.Checkpoint != "" {
			if _, err := save(); err != nil {
				return nil, err
			}
		}
		if ctx.Err() != nil {
			return nil, stopped() // between two epochs
		}
		if batches == 0 {
			if from != nil && epoch == from.Epoch {
				continue // resumed at the end of this epoch
			}
			return nil, fmt.Errorf("epoch %d: no batch (fewer samples than the batch size?)", epoch)
		}
		st := pipe.Stats().Sub(before)
		res.TrainRate = append(res.TrainRate, rate)
		waited := 100 * st.Last().BusyFraction()
		if train {
			loss := lossSum / float64(batches)
			res.EpochLoss = append(res.EpochLoss, loss)
			fmt.Fprintf(out, "epoch %d/%d: loss %.4f, %d samples in %v: %.0f samples/s (lr %.2g); the training loop waited for data %.1f%% of the time\n",
				epoch+1, cfg.Epochs, loss, batches*cfg.BatchSize, elapsed.Round(time.Millisecond), rate, opt.LR, waited)
		} else {
			fmt.Fprintf(out, "epoch %d/%d: %d samples in %v: %.0f samples/s (feed only); the loop waited for data %.1f%% of the time\n",
				epoch+1, cfg.Epochs, batches*cfg.BatchSize, elapsed.Round(time.Millisecond), rate, waited)
		}
		cfg.Log.Debug("epoch stats", zap.Int("epoch", epoch), zap.Array("stages", st))
	}
	if ctx.Err() != nil {
		return nil, stopped()
	}
	res.PipelineStats = pipe.Stats()
	// The report's "waited" is the time the training loop waited for a
	// batch; the steps behind the prefetch run on their own goroutines and
	// share the two cores with training, so their busy times include time
	// spent waiting for a core.
	fmt.Fprintf(out, "pipeline report, %d epochs (busy: producing, upstream included; wait: waiting for the training loop):\n%s",
		cfg.Epochs, res.PipelineStats.Report())
	if !train {
		return res, nil
	}
	win.add(&res.Curve, step, min(win.steps, 1), time.Now()) // the last steps, fewer than PlotEvery

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
	p := pipeline.From[mnist.Sample](mnist.Test(cfg.DataDir)).Named("mnist-test") // the files in their order, one record at a time
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
		x = nn.FromFloat32(x, img.Shape[0], mnist.Pixels, img.F32)
		pred = nn.Argmax(model.Forward(x, false), pred)
		for i, l := range lbl.I32 {
			if pred[i] == int(l) {
				right++
			}
		}
		n += img.Shape[0]
		bar.Add(img.Shape[0])
		ts.Release()
	}
	if n == 0 {
		return 0, 0, fmt.Errorf("no test samples")
	}
	return float64(right) / float64(n), n, nil
}
