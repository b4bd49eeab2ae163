package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
)

// The pipelines start goroutines (prefetch, parallel decoding) inside their
// passes; every test must leave none behind, including runs that stop in
// the middle of an epoch. A child process started by clitest.Run runs main
// instead of the tests.
func TestMain(m *testing.M) {
	clitest.RunIfChild("mnist", main)
	goleak.VerifyTestMain(m)
}

// TestBadFlagsPrintUsage runs the program with bad flags: each must end
// with exit status 2, a message naming the flag and the usage, never a
// panic.
func TestBadFlagsPrintUsage(t *testing.T) {
	clitest.CheckBadFlags(t, []clitest.BadFlags{
		{Name: "batch 0", Args: []string{"-batch", "0"}, Msg: "-batch"},
		{Name: "batch -1", Args: []string{"-batch", "-1"}, Msg: "-batch"},
		{Name: "prefetch -1", Args: []string{"-prefetch", "-1"}, Msg: "-prefetch"},
		{Name: "epochs 0", Args: []string{"-epochs", "0"}, Msg: "-epochs"},
		{Name: "hidden 0", Args: []string{"-hidden", "0"}, Msg: "-hidden"},
		{Name: "lr 0", Args: []string{"-lr", "0"}, Msg: "-lr"},
		{Name: "lr NaN", Args: []string{"-lr", "NaN"}, Msg: "-lr"},
		{Name: "lr-decay -1", Args: []string{"-lr-decay", "-1"}, Msg: "-lr-decay"},
		{Name: "train-limit -5", Args: []string{"-train-limit", "-5"}, Msg: "-train-limit"},
		{Name: "plot-every 0", Args: []string{"-plot-every", "0"}, Msg: "-plot-every"},
		{Name: "threads 0", Args: []string{"-threads", "0"}, Msg: "-threads"},
		{Name: "stop-after -1", Args: []string{"-stop-after", "-1"}, Msg: "-stop-after"},
		{Name: "stop-after without checkpoint", Args: []string{"-stop-after", "3"}, Msg: "-checkpoint"},
		{Name: "argument", Args: []string{"extra"}, Msg: "unexpected argument"},
		{Name: "unknown flag", Args: []string{"-nope"}, Msg: "-nope"},
	})
}

// TestMainFromAnotherFolder runs the program from a folder outside the
// repository with its default -data: it finds the repository's MNIST files,
// writes its plots where -plots says and names them before its last line.
func TestMainFromAnotherFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr := clitest.Run(t, "-epochs", "1", "-train-limit", "2000", "-plots", "plots")
	if code != 0 {
		t.Fatalf("exit status %d, stderr:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	n := len(lines)
	if n < 2 || !strings.HasPrefix(lines[n-1], "test accuracy: 0.") ||
		lines[n-2] != "plots: "+strings.Join([]string{
			filepath.Join("plots", "loss.png"), filepath.Join("plots", "accuracy.png"),
			filepath.Join("plots", "samples_per_second.png")}, ", ") {
		t.Errorf("stdout ends with %q, want the plots then the test accuracy", lines[max(n-2, 0):])
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "loss.png")); err != nil {
		t.Error(err)
	}
}
