package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"time"

	"github.com/tensorfeed/tensorfeed"

	"go.uber.org/zap"
	"gonum.org/v1/gonum/mat"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/examples/internal/nn"
	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

type config struct {
	DataDir   string
	Layout    string // "csviter", "header" or "all"
	Epochs    int
	BatchSize int
	LR        float64
	HoldEvery int // every HoldEvery-th row is held out
	Seed      uint64

	Log      *zap.Logger
	Progress io.Writer
}

func defaultConfig() config {
	return config{
		DataDir:   cli.RepoPath("dataset/csv/testdata"),
		Layout:    "all",
		Epochs:    100,
		BatchSize: 16,
		LR:        0.05,
		HoldEvery: 5,
		Seed:      1,
	}
}

// result is what one layout gave.
type result struct {
	Layout            string
	Train, Test       int // rows
	FirstLoss, Loss   float64
	Accuracy          float64
	Elapsed           time.Duration
	TrainStats        pipeline.Stats
	Classes, Features int
}

// layouts returns the readers of the layouts cfg asks for.
func layouts(cfg config) ([]string, []*csv.Reader, error) {
	all := map[string]*csv.Reader{
		"csviter": csv.New(filepath.Join(cfg.DataDir, "iris_data.csv"), csv.DataShape(4),
			csv.LabelFile(filepath.Join(cfg.DataDir, "iris_label.csv"))),
		"header": csv.New(filepath.Join(cfg.DataDir, "iris.data"), csv.Header(),
			csv.LabelColumns(csv.Name("Name")),
			csv.Classes("Iris-setosa", "Iris-versicolor", "Iris-virginica")),
	}
	switch cfg.Layout {
	case "all":
		return []string{"csviter", "header"}, []*csv.Reader{all["csviter"], all["header"]}, nil
	case "csviter", "header":
		return []string{cfg.Layout}, []*csv.Reader{all[cfg.Layout]}, nil
	}
	return nil, nil, fmt.Errorf("unknown layout %q (want csviter, header or all)", cfg.Layout)
}

func run(ctx context.Context, cfg config, out io.Writer) ([]result, error) {
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	ctx = tensorfeed.WithLogger(ctx, cfg.Log)
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	names, readers, err := layouts(cfg)
	if err != nil {
		return nil, err
	}
	var res []result
	for i, r := range readers {
		rr, err := train(ctx, cfg, names[i], r, out)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("layout %s (set -data to the folder of the Iris CSV files): %w", names[i], err)
			}
			return nil, fmt.Errorf("layout %s: %w", names[i], err)
		}
		res = append(res, rr)
	}
	return res, nil
}

// split returns the rows of r whose index in the pass is (or is not, for
// held == false) a multiple of every. Iris lists its classes in blocks of
// 50, so every fifth row holds out 10 rows of each class.
func split(r source.Reader[csv.Row], every int, held bool) *pipeline.Pipe[csv.Row] {
	kept := pipeline.Enumerate(pipeline.From(r)).Filter(func(s pipeline.Numbered[csv.Row]) bool { return (s.Index%every == 0) == held })
	return pipeline.Map(kept, func(s pipeline.Numbered[csv.Row]) csv.Row { return s.Value })
}

// standardizer holds the mean and deviation of every feature.
type standardizer struct{ mean, std []float32 }

func fitStandardizer(ctx context.Context, r source.Reader[csv.Row]) (*standardizer, error) {
	var sum, sq []float64
	n := 0
	for row, err := range r.All(ctx) {
		if err != nil {
			return nil, err
		}
		if sum == nil {
			sum, sq = make([]float64, len(row.Data)), make([]float64, len(row.Data))
		}
		for j, v := range row.Data {
			sum[j] += float64(v)
			sq[j] += float64(v) * float64(v)
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no training rows")
	}
	s := &standardizer{}
	for j := range sum {
		m := sum[j] / float64(n)
		sd := math.Sqrt(max(sq[j]/float64(n)-m*m, 1e-12))
		s.mean, s.std = append(s.mean, float32(m)), append(s.std, float32(sd))
	}
	return s, nil
}

// apply returns a standardised copy of the row.
func (s *standardizer) apply(row csv.Row) csv.Row {
	d := make([]float32, len(row.Data))
	for j, v := range row.Data {
		d[j] = (v - s.mean[j]) / s.std[j]
	}
	row.Data = d
	return row
}

func train(ctx context.Context, cfg config, name string, r *csv.Reader, out io.Writer) (result, error) {
	layout, err := r.Layout()
	if err != nil {
		return result{}, err
	}
	features := layout.DataShape[0]
	const classes = 3

	trainRows := split(r, cfg.HoldEvery, false)
	std, err := fitStandardizer(ctx, trainRows)
	if err != nil {
		return result{}, err
	}
	s := layout.Sink(cfg.BatchSize)
	// rows -> training rows -> standardise -> cache -> shuffle -> batch -> tensors
	p := pipeline.From[csv.Row](trainRows).Named(name)
	p = pipeline.Map(p, std.apply).Named("standardize").Cache().Shuffle(1024, cfg.Seed)
	tensors := pipeline.Tensorize(p, s, batch.Keep)

	rnd := source.NewRand(cfg.Seed, 0, -2)
	model := nn.Sequential{nn.NewLinear(features, classes, 1, rnd)} // softmax regression
	params := model.Params()
	opt := &nn.Adam{LR: cfg.LR}
	res := result{Layout: name, Classes: classes, Features: features}
	var x, grad *mat.Dense
	var labels []int
	bar := progress.New(cfg.Progress, name, int64(cfg.Epochs), "epochs", progress.Quiet())
	for epoch, pass := range tensors.Epochs(ctx, cfg.Epochs) {
		lossSum, rows := 0.0, 0
		for ts, err := range pass {
			if err != nil {
				bar.Finish()
				return result{}, err
			}
			n := ts.Len()
			x = nn.FromFloat32(x, n, features, ts.Data[0].F32)
			labels = toClasses(ts.Label[0].F32, labels)
			nn.ZeroGrad(params)
			var loss float64
			loss, grad = nn.SoftmaxCrossEntropy(model.Forward(x, true), labels, grad)
			model.Backward(grad)
			opt.Step(params)
			lossSum += loss * float64(n)
			rows += n
			ts.Release()
		}
		if rows == 0 {
			return result{}, fmt.Errorf("epoch %d: no training rows", epoch)
		}
		if epoch == 0 {
			res.FirstLoss = lossSum / float64(rows)
		}
		res.Loss, res.Train = lossSum/float64(rows), rows
		bar.Add(1)
	}
	res.Elapsed, _ = bar.Finish()
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	res.TrainStats = tensors.Stats()

	// Held-out rows, standardised with the training statistics.
	test := pipeline.Map(split(r, cfg.HoldEvery, true), std.apply)
	right := 0
	for ts, err := range pipeline.Tensorize(test, s, batch.Keep).All(ctx) {
		if err != nil {
			return result{}, err
		}
		n := ts.Len()
		pred := nn.Argmax(model.Forward(nn.FromFloat32(nil, n, features, ts.Data[0].F32), false), nil)
		for i, c := range toClasses(ts.Label[0].F32, nil) {
			if pred[i] == c {
				right++
			}
		}
		res.Test += n
		ts.Release()
	}
	if res.Test == 0 {
		return result{}, fmt.Errorf("no held-out rows")
	}
	res.Accuracy = float64(right) / float64(res.Test)
	fmt.Fprintf(out, "%s: %d training rows, %d features, %d epochs in %v: loss %.3f -> %.3f; held-out accuracy %.4f on %d rows\n",
		name, res.Train, features, cfg.Epochs, res.Elapsed.Round(time.Millisecond), res.FirstLoss, res.Loss, res.Accuracy, res.Test)
	cfg.Log.Info("layout done", zap.String("layout", name), zap.Ints("data_cols", layout.DataCols),
		zap.Strings("columns", layout.Columns), zap.Array("pipeline", res.TrainStats))
	return res, nil
}

// toClasses converts float32 class labels to ints.
func toClasses(f []float32, dst []int) []int {
	dst = dst[:0]
	for _, v := range f {
		dst = append(dst, int(v))
	}
	return dst
}
