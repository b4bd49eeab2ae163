package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli/errtest"
	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
)

// TestQuietByDefault runs the program with its defaults: its results go
// to stdout and stderr stays (almost) empty; -v turns on the log, one
// entry per epoch of each layout.
func TestQuietByDefault(t *testing.T) {
	code, stdout, stderr := clitest.Run(t)
	if code != 0 || !strings.Contains(stdout, "held-out accuracy:") {
		t.Fatalf("exit status %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if n := strings.Count(stderr, "\n"); n > 5 {
		t.Errorf("%d lines (%d bytes) on stderr, want at most 5:\n%.500s", n, len(stderr), stderr)
	}
	code, _, stderr = clitest.Run(t, "-v", "-epochs", "3")
	if n := strings.Count(stderr, "epoch done"); code != 0 || n != 6 {
		t.Errorf("-v: exit status %d, %d \"epoch done\" entries on stderr, want 6 (3 epochs of 2 layouts)", code, n)
	}
}

// TestPlainError: a missing data folder is one plain line and status 1.
func TestPlainError(t *testing.T) {
	errtest.Check(t, "csv", []string{"-data", filepath.Join(t.TempDir(), "nonexistent")}, "nonexistent")
}
