// Command mnist trains a two-layer perceptron on the MNIST digits read by a
// tensorfeed pipeline, and reports the test accuracy.
//
// Run it from anywhere in the repository:
//
//	go run ./examples/mnist
//
// The pipeline reads the IDX files in the repository's data/mnist (gzipped,
// as shipped; -data names another folder),
// shuffles the 60,000 training samples anew every epoch, batches them,
// normalises the pixels and assembles float32 and int32 tensors while the
// previous batch trains (prefetch). The model, 784-128-10 with a ReLU,
// softmax cross-entropy and Adam, is written in Go on gonum matrices.
//
// It prints the loss and throughput of every epoch, the pipeline's own
// statistics, where it wrote its plots, and as its last line the accuracy
// on the 10,000 test images (0.9765 after the default 3 epochs). On a
// terminal, a progress bar shows each epoch's samples, rate and ETA. It
// logs nothing but warnings unless -v (or -debug) asks, and an error is one
// line on stderr with exit status 1.
//
// Stop and resume: Ctrl-C (SIGINT) or SIGTERM stops the run at the next
// batch, writes the checkpoint of that position to -checkpoint, prints
// where on one line and exits with status 130 or 143. -stop-after N stops after the run's N-th batch and
// writes the input pipeline's checkpoint to -checkpoint (also written at
// the end of every epoch); -resume FILE continues from it exactly, with
// any -threads and -prefetch. The checkpoint holds the pipeline's position
// (a few hundred bytes), not the model's weights: a resumed run trains a
// fresh model. -feed-only runs the pipeline without training, and -dump
// FILE writes a line per batch (epoch, step, SHA-256 of its tensors), so
// that a stopped and resumed run can be compared with a straight one:
//
//	go run ./examples/mnist -feed-only -epochs 2 -dump straight.tsv
//	go run ./examples/mnist -feed-only -epochs 2 -dump resumed.tsv -stop-after 700 -checkpoint ck.json
//	go run ./examples/mnist -feed-only -epochs 2 -dump resumed.tsv -resume ck.json -threads 2
//	cmp straight.tsv resumed.tsv
//
// The plots are PNG files in -plots (by default tensorfeed-mnist in the
// system's temporary folder, so a run leaves nothing in the repository):
// loss.png and accuracy.png (training loss and accuracy, each point the
// mean of -plot-every steps, and the test accuracy at the end) and
// samples_per_second.png (samples/s the training loop consumed).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func main() {
	cfg := defaultConfig()
	flag.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory of the MNIST IDX files (gzipped or not)")
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "training epochs")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "batch size")
	flag.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "hidden units")
	flag.Float64Var(&cfg.LR, "lr", cfg.LR, "Adam learning rate of the first epoch")
	flag.Float64Var(&cfg.LRDecay, "lr-decay", cfg.LRDecay, "learning rate factor per epoch")
	flag.IntVar(&cfg.Prefetch, "prefetch", cfg.Prefetch, "batches assembled ahead of training (0: none, assembled by the training loop)")
	flag.IntVar(&cfg.Threads, "threads", cfg.Threads, "goroutines that normalise the pixels and assemble the tensors (the order is kept)")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle and of the weights")
	flag.IntVar(&cfg.TrainLimit, "train-limit", 0, "use only the first N training samples (0: all)")
	flag.StringVar(&cfg.PlotDir, "plots", cfg.PlotDir, `folder of the PNG plots of loss, accuracy and samples/s ("": none)`)
	flag.IntVar(&cfg.PlotEvery, "plot-every", cfg.PlotEvery, "training steps per point of the plots")
	cfg.Run.Register(flag.CommandLine, "int32")
	var logging cli.Logging
	logging.Register(flag.CommandLine)
	flag.Parse()
	cli.CheckFlags(
		cli.AtLeast("epochs", cfg.Epochs, 1),
		cli.AtLeast("batch", cfg.BatchSize, 1),
		cli.AtLeast("hidden", cfg.Hidden, 1),
		cli.Positive("lr", cfg.LR),
		cli.Positive("lr-decay", cfg.LRDecay),
		cli.AtLeast("prefetch", cfg.Prefetch, 0),
		cli.AtLeast("threads", cfg.Threads, 1),
		cli.AtLeast("train-limit", cfg.TrainLimit, 0),
		cli.AtLeast("plot-every", cfg.PlotEvery, 1),
		cfg.Run.Check(),
	)

	log := logging.Logger()
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	cfg.Log = log
	cfg.PipeLog = logging.PipelineLogger(log)
	cfg.Progress = os.Stderr

	res := cli.Main(func(ctx context.Context) (*result, error) { return run(ctx, cfg, os.Stdout) })
	if res.Stopped || cfg.Run.FeedOnly {
		return
	}
	if len(res.Plots) > 0 {
		fmt.Printf("plots: %s\n", strings.Join(res.Plots, ", "))
	}
	fmt.Printf("test accuracy: %.4f\n", res.TestAccuracy)
}
