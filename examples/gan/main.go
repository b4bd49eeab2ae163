// Command gan trains a small generative adversarial network on MNIST, fed by
// a tensorfeed pipeline that composes three readers into one typed stream,
// as PaddlePaddle's GAN example does with paddle.reader.compose:
//
//	real images     (dataset/mnist, cached and shuffled, pixels in [-1, 1])
//	noise vectors   (source.Uniform: 100 floats uniform in [-1, 1])
//	true/false      (source.Constant: the discriminator's targets)
//
// pipeline.Zip3 with pipeline.Shortest() pairs them (the noise and the labels
// are endless; the pass ends with the images), and pipeline.Tensorize
// batches them through a sink into four tensors per batch: "image",
// "noise", "real_label" and "fake_label".
//
// The networks are a small DCGAN written in Go on gonum matrices
// (examples/internal/nn): the generator turns the noise into a 7×7 map,
// which two transposed convolutions with batch normalisation enlarge to
// 14×14 and 28×28; the discriminator mirrors it with two strided
// convolutions and leaky ReLU. The program prints both losses every
// -log-every steps and writes PNG files to -out (default out/gan):
//
//	real.png         a real batch, as the pipeline delivers it
//	step_NNNNN.png   the generated digits every -sample-every steps
//	generated.png    the generated digits at the end
//	loss.png         the discriminator's and the generator's loss per step
//
// All the grids of generated digits come from the same 64 noise vectors,
// so a person can watch the digits form. They are drawn by a copy of the
// generator whose weights are a moving average of the trained ones (-ema),
// which smooths out the oscillation of the adversarial game. The default 2,000 steps take a
// few minutes on two cores.
//
//	go run ./examples/gan
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func main() {
	cfg := defaultConfig()
	flag.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory of the MNIST IDX files")
	flag.StringVar(&cfg.OutDir, "out", cfg.OutDir, "directory for the PNG grids")
	flag.IntVar(&cfg.Steps, "steps", cfg.Steps, "training steps (one discriminator and one generator update each)")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "batch size")
	flag.IntVar(&cfg.Width, "width", cfg.Width, "channels of the first convolution of the discriminator and the last of the generator (the others have twice as many)")
	flag.Float64Var(&cfg.LR, "lr", cfg.LR, "Adam learning rate of both networks")
	flag.Float64Var(&cfg.Beta1, "beta1", cfg.Beta1, "Adam's first-moment decay of both networks")
	flag.Float64Var(&cfg.Dropout, "dropout", cfg.Dropout, "dropout rate of the discriminator's last hidden layer")
	flag.Float64Var(&cfg.EMA, "ema", cfg.EMA, "decay of the moving average of the generator's weights that draws the grids (0: the latest weights)")
	flag.IntVar(&cfg.SampleEvery, "sample-every", cfg.SampleEvery, "write a grid of generated digits every N steps (0: only at the end)")
	flag.IntVar(&cfg.LogEvery, "log-every", cfg.LogEvery, "print the losses every N steps")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle, the noise and the weights")
	flag.IntVar(&cfg.JudgeEpochs, "judge-epochs", cfg.JudgeEpochs, "epochs of the classifier that scores the generated digits at the end (0: no score)")
	var logging cli.Logging
	logging.Register(flag.CommandLine)
	flag.Parse()
	cli.CheckFlags(
		cli.AtLeast("steps", cfg.Steps, 1),
		cli.AtLeast("batch", cfg.BatchSize, 1),
		cli.AtLeast("width", cfg.Width, 1),
		cli.Positive("lr", cfg.LR),
		cli.InRange("dropout", cfg.Dropout, 0, 1),
		cli.InRange("beta1", cfg.Beta1, 0, 1),
		cli.InRange("ema", cfg.EMA, 0, 1),
		cli.AtLeast("sample-every", cfg.SampleEvery, 0),
		cli.AtLeast("log-every", cfg.LogEvery, 1),
		cli.AtLeast("judge-epochs", cfg.JudgeEpochs, 0),
	)

	log := logging.Logger()
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	cfg.Log = log
	cfg.PipeLog = logging.PipelineLogger(log)
	cfg.Progress = os.Stderr

	res := cli.Main(func(ctx context.Context) (*result, error) { return run(ctx, cfg, os.Stdout) })
	fmt.Printf("final losses: discriminator %.3f, generator %.3f\n", res.DLoss, res.GLoss)
	fmt.Printf("wrote %s (generated digits), %s (a real batch), %s (both losses per step), %s (the discriminator's accuracy), %s (images/s)",
		res.Generated, res.Real, res.LossPlot, res.AccPlot, res.RatePlot)
	if len(res.Snapshots) > 0 {
		fmt.Printf(" and %d snapshots (%s ... %s)", len(res.Snapshots), filepath.Base(res.Snapshots[0]), filepath.Base(res.Snapshots[len(res.Snapshots)-1]))
	}
	fmt.Println()
}
