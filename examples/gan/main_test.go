package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
)

// The pipelines start goroutines (prefetch, parallel decoding) inside their
// passes; every test must leave none behind, including runs that stop in
// the middle of an epoch. A child process started by clitest.Run runs main
// instead of the tests.
func TestMain(m *testing.M) {
	clitest.RunIfChild("gan", main)
	goleak.VerifyTestMain(m)
}

// TestBadFlagsPrintUsage runs the program with bad flags: each must end
// with exit status 2, a message naming the flag and the usage, never a
// panic.
func TestBadFlagsPrintUsage(t *testing.T) {
	clitest.CheckBadFlags(t, []clitest.BadFlags{
		{Name: "batch 0", Args: []string{"-batch", "0"}, Msg: "-batch"},
		{Name: "batch -1", Args: []string{"-batch", "-1"}, Msg: "-batch"},
		{Name: "steps 0", Args: []string{"-steps", "0"}, Msg: "-steps"},
		{Name: "width 0", Args: []string{"-width", "0"}, Msg: "-width"},
		{Name: "lr 0", Args: []string{"-lr", "0"}, Msg: "-lr"},
		{Name: "dropout 1", Args: []string{"-dropout", "1"}, Msg: "-dropout"},
		{Name: "ema 1", Args: []string{"-ema", "1"}, Msg: "-ema"},
		{Name: "sample-every -1", Args: []string{"-sample-every", "-1"}, Msg: "-sample-every"},
		{Name: "log-every 0", Args: []string{"-log-every", "0"}, Msg: "-log-every"},
		{Name: "argument", Args: []string{"extra"}, Msg: "unexpected argument"},
	})
}
