package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

// TestWritable checks outputs as a program does before its run: a folder
// is made if need be, a file's folder must take a file, and neither check
// leaves a file behind.
func TestWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		err  error
		want string // "" for no error
	}{
		{"no output", cli.WritableDir("plots", ""), ""},
		{"new folder", cli.WritableDir("plots", filepath.Join(dir, "a", "b")), ""},
		{"folder under a file", cli.WritableDir("plots", filepath.Join(file, "plots")), "-plots " + filepath.Join(file, "plots") + ": "},
		{"no file", cli.WritableFile("dump", ""), ""},
		{"existing file", cli.WritableFile("dump", file), ""},
		{"new file", cli.WritableFile("checkpoint", filepath.Join(dir, "ck.json")), ""},
		{"file in a missing folder", cli.WritableFile("checkpoint", filepath.Join(dir, "none", "ck.json")),
			"-checkpoint " + filepath.Join(dir, "none", "ck.json") + ": cannot create a file in " + filepath.Join(dir, "none") + ": "},
		{"file that is a folder", cli.WritableFile("dump", dir), "-dump " + dir + ": is a directory"},
	} {
		if got := ""; tt.err != nil || tt.want != "" {
			if tt.err != nil {
				got = tt.err.Error()
			}
			if tt.want == "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("%s: error %q, want one starting %q", tt.name, got, tt.want)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 { // file and a
		t.Errorf("left in the folder: %v", entries)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the existing file was changed: %q", b)
	}
}
