package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// modulePath is the module whose root the examples' data paths are
// relative to.
const modulePath = "github.com/tensorfeed/tensorfeed"

// RepoPath returns rel, a path relative to the root of the tensorfeed
// repository (such as "data/mnist"), as a path that works from the current
// working directory: the examples' data ship in the repository, and a
// default data flag must not depend on where the program is started.
//
// The root is found by walking up from the working directory to the
// go.mod of github.com/tensorfeed/tensorfeed, so `go run .` in
// examples/mnist or a test in any package finds it. Outside the repository
// (a built binary run elsewhere) it falls back to the folder this file was
// compiled from, when that folder still holds the repository (not so with
// -trimpath or on another machine). When neither holds rel, rel is
// returned unchanged, and the program's error names the flag to set.
func RepoPath(rel string) string {
	if root := ModuleRoot(); root != "" {
		return relToWD(filepath.Join(root, filepath.FromSlash(rel)))
	}
	return rel
}

// ModuleRoot returns the root folder of the tensorfeed repository (see
// RepoPath), or "" when it cannot be found.
func ModuleRoot() string {
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if isModuleRoot(dir) {
				return dir
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		// file is <root>/examples/internal/cli/data.go.
		if dir := filepath.Join(filepath.Dir(file), "..", "..", ".."); isModuleRoot(dir) {
			return filepath.Clean(dir)
		}
	}
	return ""
}

// isModuleRoot reports whether dir holds the go.mod of modulePath.
func isModuleRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "module")), `"`) == modulePath
		}
	}
	return false
}

// relToWD shortens path to a relative one when it lies under the working
// directory ("data/mnist" from the root rather than /home/.../data/mnist),
// so messages and usage stay short.
func relToWD(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}
