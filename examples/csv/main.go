// Command csv trains a softmax classifier on Fisher's Iris data read from
// CSV files, in two of the layouts dataset/csv reads:
//
//   - csviter: MXNet CSVIter's two headerless files, iris_data.csv (4
//     features per row) and iris_label.csv (the class, 0-2);
//   - header: one file with a named header and string classes, iris.data
//     (SepalLength,...,Name with Iris-setosa, ...).
//
// Every fifth row is held out for testing (10 per class); the rest are
// standardised with the training rows' mean and deviation, shuffled every
// epoch, batched and assembled into "data" and "softmax_label" tensors. It
// prints the held-out accuracy of each layout; -v logs every epoch of
// every pipeline.
//
//	go run ./examples/csv
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func main() {
	cfg := defaultConfig()
	flag.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory of the Iris CSV files")
	flag.StringVar(&cfg.Layout, "layout", cfg.Layout, `which files to read: "csviter", "header" or "all"`)
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "training epochs")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "batch size")
	flag.Float64Var(&cfg.LR, "lr", cfg.LR, "Adam learning rate")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle and the weights")
	var logging cli.Logging
	logging.Register(flag.CommandLine)
	flag.Parse()
	cli.CheckFlags(
		cli.OneOf("layout", cfg.Layout, "csviter", "header", "all"),
		cli.AtLeast("epochs", cfg.Epochs, 1),
		cli.AtLeast("batch", cfg.BatchSize, 1),
		cli.Positive("lr", cfg.LR),
	)

	log := logging.Logger()
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	cfg.Log = log
	cfg.Progress = os.Stderr

	res := cli.Main(func(ctx context.Context) ([]result, error) { return run(ctx, cfg, os.Stdout) })
	line := "held-out accuracy:"
	for _, r := range res {
		line += fmt.Sprintf(" %s %.4f", r.Layout, r.Accuracy)
	}
	fmt.Println(line)
}
