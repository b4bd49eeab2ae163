// Package dumptest checks an example program's stop and resume flags
// (package dump) by running its main in child processes of the test
// binary (internal/testkit/clitest).
package dumptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

// Case is one stopped run: it stops after Stop batches, with Args added to
// the common arguments, and its resumed run adds ResumeArgs (other
// -threads and -prefetch).
type Case struct {
	Name       string
	Stop       int
	Args       []string
	ResumeArgs []string
}

// StopResume runs the program once straight with args and the dump, then
// for each case stopped after c.Stop batches and resumed from its
// checkpoint, and fails the test unless every stopped-then-resumed dump
// equals the straight one line for line. args must make the run short
// (-feed-only, small data). It returns the straight dump's lines and the
// size of each case's checkpoint, in order.
func StopResume(t *testing.T, args []string, cases []Case) (lines []string, sizes []int) {
	t.Helper()
	dir := t.TempDir()
	straight := filepath.Join(dir, "straight.tsv")
	run(t, append(args, "-dump", straight)...)
	want := readLines(t, straight)
	if len(want) == 0 {
		t.Fatal("the straight run dumped no batch")
	}
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			dump := filepath.Join(dir, "resumed"+strconv.Itoa(i)+".tsv")
			ck := filepath.Join(dir, "checkpoint"+strconv.Itoa(i)+".json")
			out := run(t, append(append(args, c.Args...), "-dump", dump, "-stop-after", strconv.Itoa(c.Stop), "-checkpoint", ck)...)
			if !strings.Contains(out, "stopped after "+strconv.Itoa(c.Stop)+" batches") {
				t.Errorf("stdout of the stopped run does not say where it stopped:\n%s", out)
			}
			if got := readLines(t, dump); len(got) != c.Stop {
				t.Errorf("the stopped run dumped %d batches, want %d", len(got), c.Stop)
			}
			info, err := os.Stat(ck)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, int(info.Size()))
			// The messages name the checkpoint's own epoch and step (the
			// dump's first two columns), not an epoch counted from 1.
			cp, err := pipeline.ReadCheckpoint(ck)
			if err != nil {
				t.Fatal(err)
			}
			at := fmt.Sprintf("at epoch %d step %d", cp.Epoch, cp.Step)
			if !strings.Contains(out, at+";") {
				t.Errorf("stdout of the stopped run does not say %q, the checkpoint's position:\n%s", at, out)
			}
			out = run(t, append(append(args, c.ResumeArgs...), "-dump", dump, "-resume", ck)...)
			if !strings.Contains(out, "resumed from "+ck+" "+at+"\n") {
				t.Errorf("stdout of the resumed run does not say it resumed %s:\n%s", at, out)
			}
			got := readLines(t, dump)
			if len(got) != len(want) {
				t.Errorf("stopped and resumed: %d batches, straight: %d", len(got), len(want))
			}
			for j := range min(len(got), len(want)) {
				if got[j] != want[j] {
					t.Fatalf("line %d: stopped and resumed %q, straight %q", j+1, got[j], want[j])
				}
			}
		})
	}
	return want, sizes
}

// run runs the program with args and returns its stdout; it fails the test
// unless the program exits with status 0.
func run(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := clitest.Run(t, args...)
	if code != 0 {
		t.Fatalf("%q: exit status %d, stdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
	}
	return stdout
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// Refused runs the program with args, which give it a checkpoint that is
// not its own, and fails the test unless it exits with status 1 and a
// message on stderr holding each of msgs.
func Refused(t *testing.T, args []string, msgs ...string) {
	t.Helper()
	code, stdout, stderr := clitest.Run(t, args...)
	ok := code == 1 && !strings.Contains(stderr, "panic:")
	for _, m := range msgs {
		ok = ok && strings.Contains(stderr, m)
	}
	if !ok {
		t.Errorf("%q: exit status %d, stdout:\n%s\nstderr:\n%s\nwant status 1 and a message with %q", args, code, stdout, stderr, msgs)
	}
}
