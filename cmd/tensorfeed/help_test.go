package main

import (
	"flag"
	"strings"
	"testing"
)

// Every command answers -h, --help and "help COMMAND" on stdout with exit
// status 0: its synopsis, its description, every flag with a description,
// and the exit statuses.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands {
		fs := newFlagSet(&c)
		c.setup(fs)
		words := strings.Fields(c.name)
		for _, args := range [][]string{
			append(append([]string{}, words...), "-h"),
			append(append([]string{}, words...), "--help"),
			append([]string{"help"}, words...),
		} {
			code, stdout, stderr := runCmd(args...)
			if code != 0 || stderr != "" {
				t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
				continue
			}
			if !strings.HasPrefix(stdout, "usage: tensorfeed "+c.name+" "+c.args+"\n") {
				t.Errorf("%q: no synopsis: %q", args, stdout)
			}
			for _, want := range []string{"exit status:", "2  usage error", "3  internal error"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("%q: no %q", args, want)
				}
			}
			fs.VisitAll(func(f *flag.Flag) {
				if strings.TrimSpace(f.Usage) == "" || !strings.Contains(stdout, "\n  --"+f.Name+" ") && !strings.Contains(stdout, "\n  --"+f.Name+"\n") {
					t.Errorf("%q: flag --%s undescribed:\n%s", args, f.Name, stdout)
				}
			})
		}
	}
}

// The command list: "tensorfeed -h", "tensorfeed help" and a group's -h.
func TestHelpLists(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		code, stdout, _ := runCmd(args...)
		if code != 0 {
			t.Errorf("%q: exit %d", args, code)
		}
		for _, c := range commands {
			if !strings.Contains(stdout, "\n  "+c.name+" ") {
				t.Errorf("%q: %s not listed", args, c.name)
			}
		}
		if !strings.Contains(stdout, "1  bad data") {
			t.Errorf("%q: no exit statuses", args)
		}
	}
	for _, args := range [][]string{{"im2rec", "-h"}, {"help", "im2rec"}, {"rec", "--help"}} {
		group := strings.TrimPrefix(strings.Join(args, " "), "help ")
		group = strings.Fields(group)[0]
		code, stdout, _ := runCmd(args...)
		if code != 0 || !strings.HasPrefix(stdout, "usage: tensorfeed "+group+" <subcommand>") {
			t.Errorf("%q: exit %d, %q", args, code, stdout)
		}
	}
	if code, _, stderr := runCmd("help", "frobnicate"); code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("help of an unknown command: exit %d, %q", code, stderr)
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aaa bbb ccc\n  kept  as is\nddd", "..", 7)
	if want := "aaa bbb\n..ccc\n..  kept  as is\n..ddd"; got != want {
		t.Errorf("wrap = %q, want %q", got, want)
	}
}

// "help -h" describes help itself, as every other command's -h does, rather
// than taking -h for a command's name.
func TestHelpOfHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "-h"}, {"help", "--help"}, {"help", "-help"}, {"help", "help"}, {"-h", "-h"}} {
		code, stdout, stderr := runCmd(args...)
		if code != 0 || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
		if !strings.HasPrefix(stdout, "usage: tensorfeed help [COMMAND]\n") || !strings.Contains(stdout, "exit status:") {
			t.Errorf("%q: not help's usage:\n%s", args, stdout)
		}
	}
}

// "help COMMAND -h" is "help COMMAND".
func TestHelpCommandFlag(t *testing.T) {
	for _, args := range [][]string{{"help", "show", "-h"}, {"help", "rec", "ls", "--help"}, {"help", "rec", "-h"}} {
		code, stdout, stderr := runCmd(args...)
		want := "usage: tensorfeed " + strings.Join(args[1:len(args)-1], " ") + " "
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, want) {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q", args, code, stdout, stderr)
		}
	}
}
