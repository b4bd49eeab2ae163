package cli_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

// A data flag's default that works from any folder of the repository.
func ExampleRepoPath() {
	dir := cli.RepoPath("data/mnist")
	_, err := os.Stat(filepath.Join(dir, "train-images-idx3-ubyte.gz"))
	fmt.Println(err == nil)
	// Output: true
}
