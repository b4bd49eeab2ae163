package tensorfeed_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestLayers checks the import arrows that keep the architecture readable
// (see the README's Architecture section): they point from programs to the
// pipeline, from the pipeline to the datasets, and from everything to the
// small packages under internal/, never back up.
//   - A package under internal/ imports nothing from dataset/, pipeline/
//     or cmd/: the internals are the bottom layer. The test kit
//     (internal/testkit/...) is the one exception: it writes real files
//     with the formats' own writers, and only tests import it.
//   - No dataset imports the pipeline: a dataset reads its format and
//     offers readers; the pipeline composes them.
//   - Only tests and other test kits import the test kit; a test kit is
//     a package under internal/testkit or one named like Go's own kits
//     (httptest, iotest): sourcetest, storagetest, dumptest.
//   - No library package imports cmd/, examples/ or bench/.
//
// Go refuses import cycles at build time, so the layers cannot loop.
func TestLayers(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	const mod = "github.com/tensorfeed/tensorfeed/"
	out, err := exec.Command(gobin, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	under := func(pkg, dir string) bool {
		p := strings.TrimPrefix(pkg, mod)
		return p == dir || strings.HasPrefix(p, dir+"/")
	}
	library := func(pkg string) bool {
		for _, d := range []string{"cmd", "examples", "bench", "internal"} {
			if under(pkg, d) {
				return false
			}
		}
		return strings.HasPrefix(pkg, mod) || pkg+"/" == mod
	}
	packages := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		pkg, imports := f[0], f[1:]
		packages++
		for _, imp := range imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			switch {
			case under(pkg, "internal") && !under(pkg, "internal/testkit") &&
				(under(imp, "dataset") || under(imp, "pipeline") || under(imp, "cmd")):
				t.Errorf("%s imports %s: nothing under internal/ but the test kit imports dataset/, pipeline/ or cmd/", pkg, imp)
			case under(imp, "internal/testkit") && !under(pkg, "internal/testkit") && !strings.HasSuffix(pkg, "test"):
				t.Errorf("%s imports %s: only tests import the test kit", pkg, imp)
			case under(pkg, "dataset") && under(imp, "pipeline"):
				t.Errorf("%s imports %s: no dataset imports the pipeline", pkg, imp)
			case library(pkg) && (under(imp, "cmd") || under(imp, "examples") || under(imp, "bench")):
				t.Errorf("%s imports %s: the library imports no program", pkg, imp)
			}
		}
	}
	if packages < 20 {
		t.Fatalf("go list named %d packages: %s", packages, out)
	}
}
