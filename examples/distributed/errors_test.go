package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli/errtest"
)

// TestPlainErrors: a missing data folder, or an -ids file that cannot be
// written, is one plain line on stderr and status 1.
func TestPlainErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errtest.Check(t, "distributed", []string{"-data", filepath.Join(dir, "nonexistent")}, "nonexistent")
	if out := errtest.Check(t, "distributed", []string{"-limit", "100", "-ids", filepath.Join(file, "ids.tsv")}, "-ids"); out != "" {
		t.Errorf("stdout %q: want nothing, the run must not start", out)
	}
}
