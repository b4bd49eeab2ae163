package resume_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/examples/internal/resume"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

// TestCancelStopsAndCheckpoints cancels a run's context after the loop
// received k batches, as tensorfeed.NotifyStop does on a signal: the next
// pull ends the pass with a *StopError at (epoch, step) of the position
// reached, the checkpoint written there, and the signal's exit status; a
// run resumed from it, with the dump of the stopped one, delivers the
// straight run's batches. k = 7 cancels after an epoch's last batch: the
// run ends between two epochs, and Err says so.
func TestCancelStopsAndCheckpoints(t *testing.T) {
	dir := t.TempDir()
	straight := filepath.Join(dir, "straight.tsv")
	feed(t, resume.Flags{Dump: straight}, 2, 3)
	want, err := os.ReadFile(straight)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 5, 7, 10} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			dump, ck := filepath.Join(dir, fmt.Sprint(k, ".tsv")), filepath.Join(dir, fmt.Sprint(k, ".json"))
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			r, err := resume.Start(ctx, resume.Flags{Dump: dump, Checkpoint: ck}, newPipe(2), 3)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var passErr error
		epochs:
			for _, pass := range r.Epochs() {
				for b, err := range pass {
					if err != nil {
						passErr = err
						break epochs
					}
					b.Release()
					if n++; n == k {
						cancel(&tensorfeed.SignalError{Signal: syscall.SIGINT})
					}
				}
			}
			err = r.Err()
			if cerr := r.Close(); cerr != nil {
				t.Fatal(cerr)
			}
			if passErr != nil && passErr != err {
				t.Errorf("the pass ended with %v, Err returns %v", passErr, err)
			}
			se, ok := errors.AsType[*resume.StopError](err)
			wantEpoch, wantStep := k/7, int64(k%7)
			if k%7 == 0 {
				wantEpoch, wantStep = k/7-1, 7 // the end of the epoch
			}
			if !ok || se.Epoch != wantEpoch || se.Step != wantStep || se.Checkpoint != ck || tensorfeed.ExitCode(err) != 130 {
				t.Fatalf("after %d batches: %v (exit status %d), want a stop at epoch %d step %d, checkpointed, status 130",
					k, err, tensorfeed.ExitCode(err), wantEpoch, wantStep)
			}
			if msg := fmt.Sprintf("stopped by SIGINT at epoch %d step %d; checkpoint written to %s", wantEpoch, wantStep, ck); err.Error() != msg {
				t.Errorf("error %q, want %q", err, msg)
			}
			c, err := pipeline.ReadCheckpoint(ck)
			if err != nil {
				t.Fatal(err)
			}
			if c.Epoch != wantEpoch || c.Step != wantStep {
				t.Errorf("checkpoint at epoch %d step %d, want %d %d", c.Epoch, c.Step, wantEpoch, wantStep)
			}
			feed(t, resume.Flags{Dump: dump, Resume: ck}, 0, 3)
			got, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("stopped and resumed dump:\n%s\nstraight:\n%s", got, want)
			}
		})
	}
}

// TestCancelWithoutCheckpoint: without -checkpoint a stopped run says
// where it stopped and that it wrote no checkpoint.
func TestCancelWithoutCheckpoint(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := resume.Start(ctx, resume.Flags{}, newPipe(1), 2)
	if err != nil {
		t.Fatal(err)
	}
	var got error
	for _, pass := range r.Epochs() {
		for b, err := range pass {
			if err != nil {
				got = err
				break
			}
			b.Release()
			cancel()
		}
	}
	if got == nil || got.Error() != "stopped at epoch 0 step 1 (context canceled); no checkpoint written (-checkpoint not set)" ||
		tensorfeed.ExitCode(got) != 1 || !errors.Is(got, context.Canceled) {
		t.Errorf("got %v", got)
	}
}

// TestCheckOutputs: a checkpoint or a dump in a folder that cannot take
// a file is an error naming the flag before the run starts.
func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := resume.Flags{Checkpoint: filepath.Join(file, "ck.json"), Dump: filepath.Join(dir, "none", "d.tsv")}
	err := f.CheckOutputs()
	if err == nil || !strings.Contains(err.Error(), "-checkpoint "+f.Checkpoint) || !strings.Contains(err.Error(), "-dump "+f.Dump) {
		t.Errorf("CheckOutputs: %v, want errors naming -checkpoint and -dump", err)
	}
	if err := (&resume.Flags{Checkpoint: filepath.Join(dir, "ck.json"), Dump: file}).CheckOutputs(); err != nil {
		t.Errorf("good outputs: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckOutputs left files: %v", entries)
	}
}
