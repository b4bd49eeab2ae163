// Command quickstart is the pipeline shown in README.md: MNIST digits,
// shuffled, batched and assembled into tensors while the model trains.
//
//	go run ./examples/quickstart
//
// It reads the repository's data/mnist from any folder of the repository.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// dataDir is the repository's data/mnist, wherever the program starts.
var dataDir = cli.RepoPath("data/mnist")

func main() {
	// Ctrl-C or SIGTERM cancels ctx: the pass ends at the next batch.
	ctx, stop := tensorfeed.NotifyStop(context.Background())
	defer stop()
	if err := run(ctx); err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = fmt.Errorf("%w: %w", cause, err) // name the signal
		}
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(tensorfeed.ExitCode(err)) // 130 for SIGINT, 143 for SIGTERM, else 1
	}
}

func run(ctx context.Context) error {
	// 60,000 digits decoded into memory (once per process), read in a new
	// order every epoch: a global shuffle by index, which a checkpoint
	// resumes directly. The tensors are the struct tags of mnist.Sample:
	// "image" float32 [128 784], here in [-1, 1], and "label" int32 [128].
	train, err := mnist.Train(dataDir).Load(ctx)
	if err != nil {
		return err // a bad file says which file and where
	}
	// Two goroutines fill whole batches, in order, ahead of the model.
	feed := pipeline.Tensorize(pipeline.From(source.ReadIndexed(train, source.ShuffleIndex(42))),
		sink.Of[mnist.Sample](128, sink.Scale("image", -1, 1)), batch.Keep, pipeline.Workers(2))

	for epoch, pass := range feed.Epochs(ctx, 2) {
		for t, err := range pass {
			if err != nil {
				return err
			}
			x, _ := t.Get("image") // x.Shape is [128 784], x.F32 is contiguous
			y, _ := t.Get("label")
			_, _ = x.F32, y.I32 // model.Step(x.F32, y.I32)
			t.Release()         // the next batch may reuse this memory
		}
		fmt.Println("epoch", epoch, "done")
	}
	fmt.Println(feed.Stats().Report()) // every step's samples, busy and wait time; how long the loop waited; the slowest step
	return nil
}
