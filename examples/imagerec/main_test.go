package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli/clitest"
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
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"batch 0", []string{"-batch", "0"}, "-batch"},
		{"batch -1", []string{"-batch", "-1"}, "-batch"},
		{"epochs 0", []string{"-epochs", "0"}, "-epochs"},
		{"threads -1", []string{"-threads", "-1"}, "-threads"},
		{"shape", []string{"-shape", "3,28"}, "-shape"},
		{"shape 0", []string{"-shape", "3,0,28"}, "-shape"},
		{"resize -1", []string{"-resize", "-1"}, "-resize"},
		{"rotate -1", []string{"-rotate", "-1"}, "-rotate"},
		{"pad -1", []string{"-pad", "-1"}, "-pad"},
		{"min-scale 0", []string{"-min-scale", "0"}, "-min-scale"},
		{"scales crossed", []string{"-min-scale", "1.2", "-max-scale", "1.1"}, "-max-scale"},
		{"argument", []string{"extra"}, "unexpected argument"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := clitest.Run(t, tt.args...)
			if code != 2 || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine 1 [") ||
				!strings.Contains(stderr, tt.msg) || !strings.Contains(stderr, "Usage of") || stdout != "" {
				t.Errorf("exit status %d, stdout %q, stderr:\n%s\nwant status 2, a message with %q and the usage", code, stdout, stderr, tt.msg)
			}
		})
	}
}
