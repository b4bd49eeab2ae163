// Package errtest checks how an example program fails: with one plain line
// on stderr, "name: error", and exit status 1, never a log entry or a
// panic's trace. It runs the program's main in a child process of the
// test binary (internal/testkit/clitest).
package errtest

import (
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
)

// Check runs the program with args and fails the test unless it exits
// with status 1 and writes to stderr exactly one line that starts with
// "name: " and holds each of msgs. It returns the program's stdout.
func Check(t *testing.T, name string, args []string, msgs ...string) string {
	t.Helper()
	code, stdout, stderr := clitest.Run(t, args...)
	line, rest, _ := strings.Cut(stderr, "\n")
	ok := code == 1 && rest == "" && strings.HasSuffix(stderr, "\n") && strings.HasPrefix(line, name+": ") &&
		!strings.Contains(line, "ERROR") && !strings.Contains(line, "{\"")
	for _, m := range msgs {
		ok = ok && strings.Contains(line, m)
	}
	if !ok {
		t.Errorf("%q: exit status %d, stderr:\n%s\nwant status 1 and one line %q holding %q", args, code, stderr, name+": ...", msgs)
	}
	return stdout
}
