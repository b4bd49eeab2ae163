package progress_test

import (
	"os"

	"github.com/tensorfeed/tensorfeed/internal/progress"
)

// A bar on standard output: a test's output is not a terminal, so nothing
// is drawn while the work runs and Finish writes one summary line (its
// time and rate vary, so Quiet keeps this example's output fixed).
func Example() {
	bar := progress.New(os.Stdout, "epoch 1/1", 60000, "samples", progress.Quiet())
	for range 60000 / 500 {
		bar.Add(500) // one batch trained
	}
	bar.Finish()
	// Output:
}
