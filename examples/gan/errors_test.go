package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli/errtest"
)

// TestPlainErrors: a missing data folder, or an output folder that cannot
// be made, is one plain line on stderr and status 1, before any training.
func TestPlainErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errtest.Check(t, "gan", []string{"-data", filepath.Join(dir, "nonexistent"), "-out", dir}, "nonexistent")
	if out := errtest.Check(t, "gan", []string{"-steps", "5", "-out", filepath.Join(file, "out")}, "-out"); out != "" {
		t.Errorf("stdout %q: want nothing, the run must not start", out)
	}
}
