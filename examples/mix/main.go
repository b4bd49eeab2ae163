// Command mix trains on a weighted mixture of two sets: MNIST's training
// digits as they are and the same digits inverted (white on black turned
// black on white, built from the first by a map that keeps random
// access), at 0.7/0.3. The mixture is one random-access dataset
// (source.Mix: exact counts every epoch, Grain's MapDataset.mix), read in
// a new order every epoch by a shuffle by index, decoded by a ParallelMap
// and assembled into tensors. The test digits are never read.
//
// It prints the proportions of every epoch, then runs again, stops in the
// middle of an epoch, writes a checkpoint, resumes from it with another
// number of ParallelMap workers, and compares every batch with the
// straight run's:
//
//	go run ./examples/mix
//	...
//	epoch 0: 85714 samples in 670 batches, proportions: plain 0.7000 inverted 0.3000 (weights 0.7/0.3)
//	...
//	same after resume: yes
package main

import (
	"context"
	"flag"
	"os"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func main() {
	cfg := defaultConfig()
	flag.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory of the MNIST files")
	flag.IntVar(&cfg.Length, "length", cfg.Length, "samples per epoch (0: the longest mixture in which no digit repeats)")
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "epochs")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "batch size")
	flag.Int64Var(&cfg.StopStep, "stop", cfg.StopStep, "the batch of the last epoch after which the second run stops and checkpoints")
	flag.IntVar(&cfg.Workers, "workers", cfg.Workers, "ParallelMap workers of the straight run and of the run that stops")
	flag.IntVar(&cfg.ResumeWorkers, "resume-workers", cfg.ResumeWorkers, "ParallelMap workers of the resumed run")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle")
	flag.Parse()
	cli.CheckFlags(
		cli.AtLeast("length", cfg.Length, 0),
		cli.AtLeast("epochs", cfg.Epochs, 1),
		cli.AtLeast("batch", cfg.BatchSize, 1),
		cli.AtLeast("stop", int(cfg.StopStep), 1),
		cli.AtLeast("workers", cfg.Workers, 1),
		cli.AtLeast("resume-workers", cfg.ResumeWorkers, 1),
	)
	cli.Main(func(ctx context.Context) (*result, error) { return run(ctx, cfg, os.Stdout) })
}

// dataDir is the repository's data/mnist, wherever the program starts.
var dataDir = cli.RepoPath("data/mnist")
