package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func TestRepoPath(t *testing.T) {
	root := cli.ModuleRoot()
	if root == "" {
		t.Fatal("no module root found from the package's folder")
	}
	if _, err := os.Stat(filepath.Join(root, "data", "mnist")); err != nil {
		t.Fatalf("root %s: %v", root, err)
	}
	for _, tt := range []struct {
		name, wd, want string
	}{
		{"from the root", root, filepath.Join("data", "mnist")},
		{"from a package", filepath.Join(root, "examples", "mnist"), filepath.Join(root, "data", "mnist")},
		// Outside the repository: the folder the package was built from.
		{"from elsewhere", t.TempDir(), filepath.Join(root, "data", "mnist")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(tt.wd)
			if got := cli.RepoPath("data/mnist"); got != tt.want {
				t.Errorf("RepoPath = %q, want %q", got, tt.want)
			}
			if _, err := os.Stat(cli.RepoPath("data/mnist")); err != nil {
				t.Error(err)
			}
		})
	}
}
