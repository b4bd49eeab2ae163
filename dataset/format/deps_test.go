package format_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The library draws no progress bar: a check reports the bytes it reads to
// the meter its caller supplies, so no drawing library is linked.
func TestNoProgressBarLinked(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "mpb") || strings.HasSuffix(p, "/internal/progress") {
			t.Errorf("dataset/format links %s", p)
		}
	}
}
