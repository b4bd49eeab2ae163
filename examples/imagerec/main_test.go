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
	clitest.RunIfChild("imagerec", main)
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
		{Name: "threads -1", Args: []string{"-threads", "-1"}, Msg: "-threads"},
		{Name: "shape", Args: []string{"-shape", "3,28"}, Msg: "-shape"},
		{Name: "shape 0", Args: []string{"-shape", "3,0,28"}, Msg: "-shape"},
		{Name: "resize -1", Args: []string{"-resize", "-1"}, Msg: "-resize"},
		{Name: "rotate -1", Args: []string{"-rotate", "-1"}, Msg: "-rotate"},
		{Name: "pad -1", Args: []string{"-pad", "-1"}, Msg: "-pad"},
		{Name: "min-scale 0", Args: []string{"-min-scale", "0"}, Msg: "-min-scale"},
		{Name: "scales crossed", Args: []string{"-min-scale", "1.2", "-max-scale", "1.1"}, Msg: "-max-scale"},
		{Name: "prefetch -1", Args: []string{"-prefetch", "-1"}, Msg: "-prefetch"},
		{Name: "stop-after -1", Args: []string{"-stop-after", "-1"}, Msg: "-stop-after"},
		{Name: "stop-after without checkpoint", Args: []string{"-stop-after", "3"}, Msg: "-checkpoint"},
		{Name: "argument", Args: []string{"extra"}, Msg: "unexpected argument"},
	})
}

// TestMainFromAnotherFolder runs the program from a folder outside the
// repository with its default -rec: it still finds the test records.
func TestMainFromAnotherFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr := clitest.Run(t, "-epochs", "1", "-out", dir)
	if code != 0 || !strings.Contains(stdout, "1000 images per epoch") {
		t.Errorf("exit status %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
