package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli/errtest"
)

// TestPlainErrors runs the program into errors: each is one plain line on
// stderr and exit status 1. Outputs that cannot be written fail before
// the run starts (nothing on stdout), not after the training whose
// results they would have held.
func TestPlainErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	short := []string{"-epochs", "1", "-train-limit", "200"}
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no data", []string{"-data", filepath.Join(dir, "nonexistent")}, "set -data"},
		{"plots", append(short, "-plots", filepath.Join(file, "plots")), "-plots " + filepath.Join(file, "plots")},
		{"checkpoint", append(short, "-plots", "", "-checkpoint", filepath.Join(dir, "none", "ck.json")), "-checkpoint"},
		{"dump", append(short, "-plots", "", "-dump", filepath.Join(file, "d.tsv")), "-dump"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if out := errtest.Check(t, "mnist", tt.args, tt.msg); out != "" {
				t.Errorf("stdout %q: want nothing, the run must not start", out)
			}
		})
	}
}
