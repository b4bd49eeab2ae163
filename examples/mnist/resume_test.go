package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/dump/dumptest"
	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
)

// feedArgs is a short run of the input pipeline alone: 1000 samples, 10
// batches of 96 per epoch, 2 epochs.
var feedArgs = []string{"-feed-only", "-epochs", "2", "-train-limit", "1000", "-batch", "96", "-plots", ""}

// TestStopResume checks that a run stopped after k batches and resumed
// from its checkpoint, with other -threads and -prefetch, delivers the
// batches of the straight run: after the first batch, in the middle of
// the first epoch, exactly at the end of it, and in the second. Each
// checkpoint is a few hundred bytes.
func TestStopResume(t *testing.T) {
	lines, sizes := dumptest.StopResume(t, feedArgs, []dumptest.Case{
		{Name: "first batch", Stop: 1, ResumeArgs: []string{"-threads", "3", "-prefetch", "0"}},
		{Name: "mid-epoch", Stop: 4, Args: []string{"-threads", "2"}, ResumeArgs: []string{"-prefetch", "1"}},
		{Name: "epoch boundary", Stop: 10, Args: []string{"-prefetch", "0"}, ResumeArgs: []string{"-threads", "2", "-prefetch", "8"}},
		{Name: "second epoch", Stop: 13, ResumeArgs: []string{"-threads", "4"}},
	})
	if len(lines) != 20 || !strings.HasPrefix(lines[0], "0\t0\t") || !strings.HasPrefix(lines[19], "1\t9\t") {
		t.Errorf("straight dump %q: want 20 lines, epoch 0 step 0 to epoch 1 step 9", lines)
	}
	for i, n := range sizes {
		t.Logf("checkpoint %d: %d bytes", i, n)
		if n > 1024 {
			t.Errorf("checkpoint %d is %d bytes, want at most 1 KiB", i, n)
		}
	}
}

// TestResumeRefused gives the program checkpoints that are not its own:
// one of examples/imagerec, and its own taken with another -batch. Each is
// refused with exit status 1 and both pipelines' shapes.
func TestResumeRefused(t *testing.T) {
	dumptest.Refused(t, append(feedArgs, "-resume", filepath.Join("testdata", "imagerec_checkpoint.json")),
		"of another pipeline", "step indexed(1000,shuffle=1) here is records(1 files,shuffle=1) in the checkpoint")
	ck := filepath.Join(t.TempDir(), "checkpoint.json")
	if code, _, stderr := clitest.Run(t, append(feedArgs, "-stop-after", "2", "-checkpoint", ck)...); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	dumptest.Refused(t, append(feedArgs, "-batch", "64", "-resume", ck), "of another pipeline", "step batch differs", "64 here, 96 in the checkpoint")
}
