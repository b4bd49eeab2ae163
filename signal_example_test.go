package tensorfeed_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/tensorfeed/tensorfeed"
)

// A training program that stops cleanly on Ctrl-C or on a scheduler's
// SIGTERM: its loop ends at the next batch, and the program exits with
// 130 or 143. Here no signal comes, and the run ends normally.
func ExampleNotifyStop() {
	ctx, stop := tensorfeed.NotifyStop(context.Background())
	defer stop()
	train := func(ctx context.Context) error {
		for step := range 3 {
			if err := ctx.Err(); err != nil {
				// Save the checkpoint of the position reached here.
				return fmt.Errorf("step %d: %w", step, err)
			}
		}
		return nil
	}
	err := train(ctx)
	if cause := context.Cause(ctx); err != nil && cause != nil {
		err = fmt.Errorf("%w: %w", cause, err) // name the signal
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(tensorfeed.ExitCode(err))
	}
	fmt.Println("done")
	// Output: done
}

// The exit status of a run that ended with an error.
func ExampleExitCode() {
	fmt.Println(tensorfeed.ExitCode(nil))
	fmt.Println(tensorfeed.ExitCode(errors.New("bad data")))
	fmt.Println(tensorfeed.ExitCode(&tensorfeed.SignalError{Signal: os.Interrupt}))
	fmt.Println(tensorfeed.ExitCode(fmt.Errorf("epoch 2: %w", &tensorfeed.SignalError{Signal: syscall.SIGTERM})))
	// Output:
	// 0
	// 1
	// 130
	// 143
}
