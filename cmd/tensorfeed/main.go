// Command tensorfeed works with the data files tensorfeed reads.
//
// Usage:
//
//	tensorfeed <command> [arguments]
//
// Run "tensorfeed help" for the list of commands. Each command lives in its
// own file and is listed in the commands table below.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// command is one subcommand: "tensorfeed NAME args...".
type command struct {
	name  string
	usage string // synopsis lines, without the leading "tensorfeed "
	// run executes the command with the arguments after its name. It
	// returns a *usageError for bad arguments.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands, each defined in its own file. Adding a
// command means adding its file and one line here.
var commands = []command{
	{"rec", recUsage, runRec},
	{"im2rec", im2recUsage, runIm2rec},
	{"check", checkUsage, runCheck},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command line args (without the program name) and returns the
// exit status: 0 on success, 1 on failure, 2 on a usage error, or the
// status an *exitError carries.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		printUsage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		var ue *usageError
		var ee *exitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			if ee.msg != "" {
				fmt.Fprintf(stderr, "tensorfeed %s: %s\n", c.name, ee.msg)
			}
			return ee.code
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "tensorfeed %s: %s\nusage:\n%s\n", c.name, ue.msg, indent(c.usage))
			return 2
		default:
			fmt.Fprintf(stderr, "tensorfeed %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "tensorfeed: unknown command %q\n", args[0])
	printUsage(stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: tensorfeed <command> [arguments]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintln(w, indent(c.usage))
	}
}

// indent formats usage lines: "tensorfeed " before each synopsis line, and
// the same indentation before continuation lines (those that start with a
// space).
func indent(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.Trim(s, "\n"), "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if strings.HasPrefix(line, " ") {
			b.WriteString("             ")
		} else {
			b.WriteString("  tensorfeed ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// usageError reports bad command-line arguments; run prints the command's
// usage with it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitError ends a command with a given exit status, after the command has
// reported what went wrong itself (msg, when set, is printed too).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d: %s", e.code, e.msg) }
