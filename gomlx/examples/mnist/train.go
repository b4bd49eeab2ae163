package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // the pure-Go backend: no PJRT plugin to download
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"
	"github.com/gomlx/gomlx/pkg/ml/datasets"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"
	"github.com/gomlx/gomlx/pkg/ml/train/metrics"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers/cosineschedule"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/gomlx/tfgomlx"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// config is what a run is made of; the flags set it.
type config struct {
	DataDir    string
	Batch      int     // training batch size
	Steps      int     // training steps in all (global steps)
	Seed       uint64  // the shuffle's and the model's seed
	Hidden     int     // the MLP's hidden units
	LR         float64 // Adam's learning rate
	Prefetch   int     // batches tensorfeed assembles ahead
	Model      string  // "mlp" or "cnn"
	TrainLimit int     // 0: the whole training set; else its first TrainLimit digits (tests)
	TestLimit  int     // 0: the whole test set; else its first TestLimit digits (tests)
	EvalBatch  int     // test batch size
}

func defaults() config {
	return config{Batch: 100, Steps: 2400, Seed: 42, Hidden: 128, LR: 2e-3, Prefetch: 4, Model: "mlp", EvalBatch: 1000}
}

// data is the MNIST sets in memory: random-access tables, so that the
// training feed shuffles by index and resumes without reading what it skips.
type data struct {
	train, test source.Indexed[mnist.Sample]
}

func load(ctx context.Context, cfg config) (*data, error) {
	tr, err := loadSet(ctx, mnist.Train(cfg.DataDir), cfg.TrainLimit)
	if err != nil {
		return nil, fmt.Errorf("MNIST training set (set -data to the folder of the MNIST IDX files): %w", err)
	}
	te, err := loadSet(ctx, mnist.Test(cfg.DataDir), cfg.TestLimit)
	if err != nil {
		return nil, fmt.Errorf("MNIST test set: %w", err)
	}
	return &data{train: tr, test: te}, nil
}

func loadSet(ctx context.Context, ds *mnist.Dataset, limit int) (source.Indexed[mnist.Sample], error) {
	if limit == 0 {
		t, err := ds.Load(ctx)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	samples := make([]mnist.Sample, 0, limit)
	for s, err := range ds.All(ctx) {
		if err != nil {
			return nil, err
		}
		samples = append(samples, s)
		if len(samples) == limit {
			break
		}
	}
	return source.IndexSlice(samples), nil
}

func fillImage(s mnist.Sample, dst []float32) {
	for i, p := range s.Image {
		dst[i] = float32(p) / 255
	}
}

func fillLabel(s mnist.Sample, dst []int32) { dst[0] = int32(s.Label) }

// newSink describes the tensors the model reads: "image" float32[B 784]
// and "label" int32[B 1] (GoMLX's sparse losses and accuracy want the
// label's last axis of size 1).
func newSink(batchSize int) *sink.Sink[mnist.Sample] {
	return sink.New(batchSize,
		[]sink.Field[mnist.Sample]{sink.Float32("image", []int{mnist.Pixels}, fillImage)},
		[]sink.Field[mnist.Sample]{sink.Int32("label", []int{1}, fillLabel)})
}

// trainFeed is the training pipeline: the table, a global shuffle by index
// (a new order every epoch, a checkpoint of a few numbers), full batches
// only, tensors assembled ahead of the training loop.
func trainFeed(cfg config, d *data) (*pipeline.Pipe[*tensor.Batch], *sink.Sink[mnist.Sample]) {
	s := newSink(cfg.Batch)
	src := pipeline.From[mnist.Sample](source.ReadIndexed(d.train, source.ShuffleIndex(cfg.Seed))).Named("mnist")
	feed := pipeline.Tensorize(src, s, batch.Drop)
	if cfg.Prefetch > 0 {
		feed = feed.Buffered(cfg.Prefetch)
	}
	return feed, s
}

// trainDataset is the training feed as a GoMLX dataset, endless (epochs
// follow each other) for Loop.RunSteps, from ck when it is not nil.
func trainDataset(ctx context.Context, cfg config, d *data, ck *pipeline.Checkpoint) (*tfgomlx.Dataset, error) {
	feed, s := trainFeed(cfg, d)
	opts := []tfgomlx.Option{tfgomlx.Name("mnist-train"), tfgomlx.Endless()}
	if ck != nil {
		opts = append(opts, tfgomlx.ResumeFrom(ck))
	}
	return tfgomlx.New(ctx, feed, s.ProvideData(), s.ProvideLabel(), opts...)
}

// testDataset is the test set in order, as a GoMLX dataset of one epoch
// per Reset; a short last batch is kept (one more compilation) so every
// test digit counts.
func testDataset(ctx context.Context, cfg config, d *data) (*tfgomlx.Dataset, error) {
	s := newSink(cfg.EvalBatch)
	feed := pipeline.Tensorize(pipeline.From[mnist.Sample](source.ReadIndexed(d.test)), s, batch.Keep)
	return tfgomlx.New(ctx, feed, s.ProvideData(), s.ProvideLabel(), tfgomlx.Name("mnist-test"), tfgomlx.KeepPartial())
}

// model is the classifier: logits [B 10] of images [B 784].
func model(cfg config) train.ModelFn {
	return func(ctx *mlctx.Context, _ any, inputs []*graph.Node) []*graph.Node {
		// The learning rate follows a cosine from cfg.LR down to nearly 0
		// over the run's steps; its step counter is a variable of the
		// context, saved and resumed with the model.
		cosineschedule.New(ctx, inputs[0].Graph(), dtypes.Float32).LearningRate(cfg.LR).
			MinLearningRate(cfg.LR / 100).PeriodSteps(cfg.Steps).Done()
		ctx = ctx.In("model")
		x := inputs[0]
		batchSize := x.Shape().Dimensions[0]
		if cfg.Model == "cnn" {
			x = graph.Reshape(x, batchSize, 28, 28, 1)
			x = layers.Convolution(ctx.In("conv1"), x).Channels(8).KernelSize(3).PadSame().Done()
			x = graph.MaxPool(activations.Relu(x)).Window(2).Done()
			x = layers.Convolution(ctx.In("conv2"), x).Channels(16).KernelSize(3).PadSame().Done()
			x = graph.MaxPool(activations.Relu(x)).Window(2).Done()
			x = graph.Reshape(x, batchSize, -1)
		}
		x = activations.Relu(layers.DenseWithBias(ctx.In("hidden"), x, cfg.Hidden))
		return []*graph.Node{layers.DenseWithBias(ctx.In("logits"), x, 10)}
	}
}

// session is a model being trained: GoMLX's context (variables and
// optimizer state), trainer and loop.
type session struct {
	ctx     *mlctx.Context
	trainer *train.Trainer
	loop    *train.Loop
	ckpt    *checkpoints.Handler // nil without a checkpoint folder
}

// newSession makes a fresh model, or, with a checkpoint folder that holds
// a GoMLX checkpoint, the model saved there (variables, Adam's moments,
// the global step).
func newSession(backend backends.Backend, cfg config, dir string) (*session, error) {
	ctx := mlctx.New()
	ctx.SetParam(mlctx.ParamInitialSeed, int64(cfg.Seed)) // the same initial weights every run
	if err := ctx.SetRNGStateFromSeed(int64(cfg.Seed)); err != nil {
		return nil, err
	}
	s := &session{}
	if dir != "" {
		h, err := checkpoints.Build(ctx).Dir(dir).Keep(2).Done()
		if err != nil {
			return nil, fmt.Errorf("GoMLX checkpoint in %s: %w", dir, err)
		}
		s.ckpt = h
		if optimizers.GetGlobalStep(ctx) > 0 {
			ctx = ctx.Reuse()
		}
	}
	s.ctx = ctx
	s.trainer = train.NewTrainer(backend, ctx, model(cfg), losses.SparseCategoricalCrossEntropyLogits,
		optimizers.Adam().LearningRate(cfg.LR).Done(),
		nil, []metrics.Interface{metrics.NewSparseCategoricalAccuracy("accuracy", "#acc")})
	s.loop = train.NewLoop(s.trainer)
	return s, nil
}

func (s *session) globalStep() int { return int(optimizers.GetGlobalStep(s.ctx)) }

// testAccuracy evaluates the model on the test set, fed by its own
// pipeline.
func (s *session) testAccuracy(ctx context.Context, cfg config, d *data) (float64, error) {
	test, err := testDataset(ctx, cfg, d)
	if err != nil {
		return 0, err
	}
	defer test.Close()
	return s.accuracy(test)
}

// accuracy evaluates the model on ds.
func (s *session) accuracy(ds train.Dataset) (float64, error) {
	m, err := s.trainer.Eval(ds)
	if err != nil {
		return 0, err
	}
	return float64(tensors.ToScalar[float32](m[len(m)-1])), nil // Eval returns the losses first, then the metrics
}

// modelDigest hashes every variable of the model and the optimizer (names
// and values), the global step included; not the training metrics' moving
// averages, whose names are new in every session.
func (s *session) modelDigest() (string, error) {
	h := sha256.New()
	var vars []*mlctx.Variable
	for v := range s.ctx.IterVariables() {
		vars = append(vars, v)
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].ParameterName() < vars[j].ParameterName() })
	for _, v := range vars {
		if strings.Contains(v.ParameterName(), "/metrics/") {
			continue
		}
		t, err := v.Value()
		if err != nil {
			return "", err
		}
		h.Write([]byte(v.ParameterName()))
		if err := t.ConstBytes(func(b []byte) { h.Write(b) }); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// feedFile is the tensorfeed checkpoint saved beside GoMLX's checkpoint of
// the same global step.
func feedFile(dir string, step int) string {
	return filepath.Join(dir, fmt.Sprintf("tensorfeed-step-%08d.json", step))
}

// save writes GoMLX's checkpoint (variables, optimizer state, global step)
// and, beside it, tensorfeed's checkpoint of the feed at the same step; it
// removes the feed checkpoints of steps GoMLX no longer keeps.
func (s *session) save(ctx context.Context, ds *tfgomlx.Dataset, dir string) error {
	if err := s.ckpt.Save(); err != nil {
		return err
	}
	ck, err := ds.Checkpoint(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	step := s.globalStep()
	if err := ck.WriteFile(feedFile(dir, step)); err != nil {
		return err
	}
	kept, err := s.ckpt.ListCheckpoints()
	if err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "tensorfeed-step-*.json"))
	for _, f := range old {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "tensorfeed-step-"), ".json"))
		keep := false
		for _, k := range kept {
			keep = keep || strings.HasSuffix(k, fmt.Sprintf("-step-%08d", n))
		}
		if !keep {
			_ = os.Remove(f)
		}
	}
	return nil
}

// feedCheckpoint reads the tensorfeed checkpoint saved with the GoMLX
// checkpoint that s resumed (nil for a fresh model).
func (s *session) feedCheckpoint(dir string) (*pipeline.Checkpoint, error) {
	step := s.globalStep()
	if step == 0 {
		return nil, nil
	}
	ck, err := pipeline.ReadCheckpoint(feedFile(dir, step))
	if err != nil {
		return nil, fmt.Errorf("the model in %s is at step %d, but its feed checkpoint cannot be read: %w", dir, step, err)
	}
	return ck, nil
}

// recorder wraps a GoMLX dataset: it hashes what each Yield hands GoMLX
// (a digest per training step) and times the Yields, the time GoMLX
// waited for data, the same way for any dataset.
type recorder struct {
	train.Dataset
	sums   []string
	waited time.Duration
}

func (r *recorder) Yield() (spec any, inputs, labels []*tensors.Tensor, err error) {
	start := time.Now()
	spec, inputs, labels, err = r.Dataset.Yield()
	r.waited += time.Since(start)
	if err != nil {
		return
	}
	h := sha256.New()
	for _, t := range append(append([]*tensors.Tensor(nil), inputs...), labels...) {
		if e := t.ConstBytes(func(b []byte) { h.Write(b) }); e != nil {
			return nil, nil, nil, e
		}
	}
	r.sums = append(r.sums, hex.EncodeToString(h.Sum(nil)[:8]))
	return
}

// inMemory is the training set as GoMLX's own in-memory dataset, shuffled
// by GoMLX, endless, with the same batch size and normalisation.
func inMemory(backend backends.Backend, cfg config, d *data) (*datasets.InMemoryDataset, error) {
	n := d.train.Len()
	images := make([]float32, 0, n*mnist.Pixels)
	labels := make([]int32, n)
	px := make([]float32, mnist.Pixels)
	for i := range n {
		s, err := d.train.Get(i)
		if err != nil {
			return nil, err
		}
		fillImage(s, px)
		images = append(images, px...)
		labels[i] = int32(s.Label)
	}
	mds, err := datasets.InMemoryFromData(backend, "mnist-inmemory",
		[]any{tensors.FromFlatDataAndDimensions(images, n, mnist.Pixels)},
		[]any{tensors.FromFlatDataAndDimensions(labels, n, 1)})
	if err != nil {
		return nil, err
	}
	return mds.BatchSize(cfg.Batch, true).WithRand(rand.New(rand.NewSource(int64(cfg.Seed)))).Shuffle().Infinite(true), nil
}
