package resume_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/examples/internal/resume"
)

// A run stopped after 3 batches writes its checkpoint; the run that
// resumes from it delivers the rest, and its dump lines follow the first
// run's.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "resume")
	defer os.RemoveAll(dir)
	flags := resume.Flags{Dump: filepath.Join(dir, "dump.tsv"), StopAfter: 3, Checkpoint: filepath.Join(dir, "checkpoint.json")}
	for i := range 2 {
		run, err := resume.Start(context.Background(), flags, newPipe(2), 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		for epoch, pass := range run.Epochs() {
			for b, err := range pass {
				if err != nil {
					fmt.Println(err)
					return
				}
				b.Release() // train on b here
			}
			fmt.Printf("run %d: epoch %d, %d batches\n", i, epoch, run.Batches())
		}
		if c := run.Stopped(); c != nil {
			fmt.Printf("run %d stopped at epoch %d, step %d\n", i, c.Epoch, c.Step)
		}
		run.Close()
		flags.StopAfter, flags.Resume = 0, flags.Checkpoint // the next run resumes
	}
	dump, _ := os.ReadFile(flags.Dump)
	fmt.Println(strings.Count(string(dump), "\n"), "lines in the dump") // epoch, step, sha256
	// Output:
	// run 0: epoch 0, 3 batches
	// run 0 stopped at epoch 0, step 3
	// run 1: epoch 0, 4 batches
	// 7 lines in the dump
}
