package main

import (
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
	clitest.RunIfChild("csv", main)
	goleak.VerifyTestMain(m)
}

// TestBadFlagsPrintUsage runs the program with bad flags: each must end
// with exit status 2, a message naming the flag and the usage, never a
// panic.
func TestBadFlagsPrintUsage(t *testing.T) {
	clitest.CheckBadFlags(t, []clitest.BadFlags{
		{Name: "batch 0", Args: []string{"-batch", "0"}, Msg: "-batch"},
		{Name: "batch -1", Args: []string{"-batch", "-1"}, Msg: "-batch"},
		{Name: "epochs 0", Args: []string{"-epochs", "0"}, Msg: "-epochs"},
		{Name: "lr -1", Args: []string{"-lr", "-1"}, Msg: "-lr"},
		{Name: "layout", Args: []string{"-layout", "tsv"}, Msg: "-layout"},
		{Name: "argument", Args: []string{"extra"}, Msg: "unexpected argument"},
	})
}

// TestMainFromAnotherFolder runs the program from a folder outside the
// repository with its default -data: it still finds the Iris files.
func TestMainFromAnotherFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	code, stdout, stderr := clitest.Run(t, "-epochs", "5")
	if code != 0 || !strings.Contains(stdout, "held-out accuracy: csviter 0.") {
		t.Errorf("exit status %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestMainMissingData names the flag to set when the data are not there.
func TestMainMissingData(t *testing.T) {
	code, _, stderr := clitest.Run(t, "-data", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "set -data") {
		t.Errorf("exit status %d, stderr:\n%s", code, stderr)
	}
}
