package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// A training loop stops in the middle of an epoch and saves where it is;
// a new process resumes there. The loop counts nothing: the feed keeps its
// position, also across the resume.
func ExamplePipe_Checkpoint() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "ck")
	defer os.RemoveAll(dir)
	ckPath := filepath.Join(dir, "ck.json")

	// 10 numbers in a new order every epoch, in batches of 4 (the last short).
	build := func() *pipeline.Pipe[batch.Batch[int]] {
		table := source.IndexSlice([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
		return pipeline.Batch(pipeline.From[int](source.ReadIndexed(table, source.ShuffleIndex(42))), 4, batch.Keep)
	}

	feed := build()
train:
	for _, pass := range feed.Epochs(ctx, 2) {
		for b, err := range pass {
			if err != nil {
				panic(err)
			}
			fmt.Println("train on", b.Samples)
			if _, step := feed.Position(); step == 2 { // stopping: save and leave
				ck, err := feed.Checkpoint(ctx)
				if err != nil {
					panic(err)
				}
				if err := ck.WriteFile(ckPath); err != nil {
					panic(err)
				}
				break train
			}
		}
	}

	// Later, in a new process, with the pipeline built the same way.
	ck, err := pipeline.ReadCheckpoint(ckPath)
	if err != nil {
		panic(err)
	}
	feed = build()
	epochs, err := feed.EpochsFrom(ctx, ck, 2)
	if err != nil {
		panic(err)
	}
	for epoch, pass := range epochs {
		for b, err := range pass {
			if err != nil {
				panic(err)
			}
			_, step := feed.Position()
			fmt.Println("epoch", epoch, "step", step, "train on", b.Samples)
		}
	}
	// Output:
	// train on [5 7 9 1]
	// train on [2 0 8 6]
	// epoch 0 step 3 train on [3 4]
	// epoch 1 step 1 train on [3 4 1 9]
	// epoch 1 step 2 train on [5 2 7 8]
	// epoch 1 step 3 train on [0 6]
}
