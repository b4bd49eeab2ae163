package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/dump/dumptest"
	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
)

// feedArgs is a short run of the iterator alone over the 1000 test
// records, shuffled, randomly cropped and mirrored, on 2 goroutines: 11
// batches of 96 per epoch (the last one padded), 2 epochs.
var feedArgs = []string{"-feed-only", "-epochs", "2", "-batch", "96", "-mirror", "-threads", "2"}

// TestStopResume checks that a run stopped after k batches and resumed
// from its checkpoint, with other -threads and -prefetch, delivers the
// batches of the straight run: after the first batch, exactly at the end
// of the first epoch (after its padded batch), and in the middle of the
// second. The iterator resumes by replay, which decodes what it skips, so
// the cases are few.
func TestStopResume(t *testing.T) {
	lines, sizes := dumptest.StopResume(t, feedArgs, []dumptest.Case{
		{Name: "first batch", Stop: 1, ResumeArgs: []string{"-threads", "1", "-prefetch", "0"}},
		{Name: "epoch boundary", Stop: 11, ResumeArgs: []string{"-threads", "1", "-prefetch", "8"}},
		{Name: "mid-epoch", Stop: 15, Args: []string{"-threads", "1"}, ResumeArgs: []string{"-threads", "2", "-prefetch", "2"}},
	})
	if len(lines) != 22 || !strings.HasPrefix(lines[0], "0\t0\t") || !strings.HasPrefix(lines[21], "1\t10\t") {
		t.Errorf("straight dump %q: want 22 lines, epoch 0 step 0 to epoch 1 step 10", lines)
	}
	for i, n := range sizes {
		t.Logf("checkpoint %d: %d bytes", i, n)
	}
}

// TestResumeRefused gives the program checkpoints that are not its own:
// one of examples/mnist, and its own taken with another -batch or another
// rotation. Each is refused with exit status 1, naming what differs.
func TestResumeRefused(t *testing.T) {
	dumptest.Refused(t, append(feedArgs, "-resume", filepath.Join("testdata", "mnist_checkpoint.json")),
		"of another pipeline", "step records(1 files,shuffle=1) here is indexed(1000,shuffle=1) in the checkpoint")
	ck := filepath.Join(t.TempDir(), "checkpoint.json")
	if code, _, stderr := clitest.Run(t, append(feedArgs, "-stop-after", "2", "-checkpoint", ck)...); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	dumptest.Refused(t, append(feedArgs, "-batch", "64", "-resume", ck), "of another pipeline", "step ImageRecordIter differs in batchsize: 64 here, 96 in the checkpoint")
	dumptest.Refused(t, append(feedArgs, "-rotate", "5", "-resume", ck), "of another pipeline", "step ImageRecordIter differs in affine: {maxrotateangle:5")
}
