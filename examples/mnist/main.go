// Command mnist trains a two-layer perceptron on the MNIST digits read by a
// tensorfeed pipeline, and reports the test accuracy.
//
// Run it from the repository root:
//
//	go run ./examples/mnist
//
// The pipeline reads the IDX files in data/mnist (gzipped, as shipped),
// shuffles the 60,000 training samples anew every epoch, batches them,
// normalises the pixels and assembles float32 and int32 tensors while the
// previous batch trains (prefetch). The model, 784-128-10 with a ReLU,
// softmax cross-entropy and Adam, is written in Go on gonum matrices.
//
// It prints the loss and throughput of every epoch, the pipeline's own
// statistics, and as its last line the accuracy on the 10,000 test images
// (about 0.977 after the default 3 epochs).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"go.uber.org/zap"

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
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle and of the weights")
	flag.IntVar(&cfg.TrainLimit, "train-limit", 0, "use only the first N training samples (0: all)")
	debug := flag.Bool("debug", false, "log the pipeline's statistics of every epoch and pass")
	flag.Parse()
	cli.CheckFlags(
		cli.AtLeast("epochs", cfg.Epochs, 1),
		cli.AtLeast("batch", cfg.BatchSize, 1),
		cli.AtLeast("hidden", cfg.Hidden, 1),
		cli.Positive("lr", cfg.LR),
		cli.Positive("lr-decay", cfg.LRDecay),
		cli.AtLeast("prefetch", cfg.Prefetch, 0),
		cli.AtLeast("train-limit", cfg.TrainLimit, 0),
	)

	log := cli.Logger(*debug)
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	cfg.Log = log
	cfg.PipeLog = cli.PipelineLogger(log, *debug)
	cfg.Progress = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		log.Error("mnist failed", zap.Error(err))
		os.Exit(1)
	}
	fmt.Printf("test accuracy: %.4f\n", res.TestAccuracy)
}
