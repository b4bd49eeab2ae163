package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// Every test in this package must leave no goroutine behind (im2rec packs
// with several threads).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// runCmd runs a command line and returns its exit status and outputs.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string // part of stdout
		stderr string // part of stderr
	}{
		{nil, 2, "", "usage: tensorfeed <command>"},
		{[]string{"help"}, 0, "\n  rec ls ", ""},
		{[]string{"--help"}, 0, "\n  rec cat ", ""},
		{[]string{"-h"}, 0, "\n  im2rec pack ", ""},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"rec"}, 2, "", "missing subcommand"},
		{[]string{"rec", "rm", "x.rec"}, 2, "", `unknown subcommand "rm"`},
		{[]string{"rec", "ls"}, 2, "", "rec ls takes one file, got 0"},
		{[]string{"rec", "ls", "a.rec", "b.rec"}, 2, "", "got 2 arguments"},
		{[]string{"rec", "ls", "--bogus", "a.rec"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"rec", "cat", "a.rec"}, 2, "", "rec cat takes a file and a record number"},
		{[]string{"rec", "cat", "a.rec", "-1"}, 2, "", "flag provided but not defined: -1"},
		{[]string{"rec", "cat", "a.rec", "x"}, 2, "", `bad record number "x"`},
		{[]string{"rec", "ls", "no/such.rec"}, 1, "", "tensorfeed rec ls: open no/such.rec"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCmd(c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
		if c.code == 2 && len(c.args) > 0 && c.args[0] == "rec" && !regexp.MustCompile(`usage:\s+tensorfeed rec (ls|cat|<subcommand>)`).MatchString(stderr) {
			t.Errorf("%q: usage error without the command's usage: %q", c.args, stderr)
		}
	}
}

func TestCommandNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands {
		if seen[c.name] || c.name == "" || c.setup == nil || c.summary == "" || c.doc == "" || c.args == "" {
			t.Errorf("bad command entry %q", c.name)
		}
		seen[c.name] = true
	}
}
