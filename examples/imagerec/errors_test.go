package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli/errtest"
)

// TestPlainErrors: a missing file, or an output that cannot be written, is
// one plain line on stderr and status 1, before the run starts.
func TestPlainErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errtest.Check(t, "imagerec", []string{"-rec", filepath.Join(dir, "none.rec"), "-out", dir}, "none.rec")
	for _, args := range [][]string{
		{"-out", filepath.Join(file, "out")},
		{"-feed-only", "-checkpoint", filepath.Join(file, "ck.json")},
	} {
		if out := errtest.Check(t, "imagerec", args, args[len(args)-2]); out != "" {
			t.Errorf("%q: stdout %q: want nothing, the run must not start", args, out)
		}
	}
}
