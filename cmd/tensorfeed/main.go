// Command tensorfeed works with the data files tensorfeed reads: it checks
// them, converts datasets into RecordIO, TFRecord, WebDataset or Parquet
// shards, packs folders of images into RecordIO image records as MXNet's
// tools/im2rec.py does, lists and extracts records, draws the images of a
// dataset into a PNG grid, and serves batches to trainers in other
// processes (a Python client in python/).
//
// Usage:
//
//	tensorfeed <command> [flags] [arguments]
//
// The commands:
//
//	check        validate files tensorfeed reads, record by record
//	convert      convert a dataset into RecordIO, TFRecord, WebDataset or Parquet shards
//	ls           list the records of files of any format, with their sizes and SHA-256
//	im2rec list  write .lst files listing a folder of images, labelled by sub-folder
//	im2rec pack  pack the images of .lst files into .rec and .idx files
//	rec ls       list the records of a .rec file
//	rec cat      write one record's image to stdout
//	show         draw the first images of a dataset into a PNG grid, labelled
//	serve        serve MNIST, image records or fixed-shape records as batches over a socket
//	help         describe a command and its flags
//
// "tensorfeed help COMMAND" and "tensorfeed COMMAND -h" describe a command
// and every one of its flags. Flags may come before, between or after the
// arguments, with one dash or two.
//
// # Files and URLs
//
// The inputs of check, ls, convert (files of the format registry) and rec
// ls / rec cat may be local paths, s3://bucket/key objects (ls and convert
// also take key globs: s3://bucket/train-*.rec) or http(s):// URLs, read
// through package storage. S3 is reached with the standard AWS_* environment
// variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION, AWS_PROFILE); AWS_ENDPOINT_URL names an S3-compatible server
// such as MinIO.
//
// # Exit status
//
//	0  success
//	1  bad data, or a failure such as a file that cannot be read or written
//	2  usage error: an unknown command or flag, or wrong arguments
//	3  internal error: a bug in tensorfeed, reported with its stack
//
// # Progress
//
// im2rec pack, convert, and check of files from 16 MiB, draw a progress bar
// on stderr when stdout and stderr are both terminals; output sent to a file
// or a pipe holds no bar.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitInternal = 3
)

// exitStatusHelp is the exit status table of every help text.
const exitStatusHelp = `exit status:
  0  success
  1  bad data, or a failure such as a file that cannot be read or written
  2  usage error: an unknown command or flag, or wrong arguments
  3  internal error: a bug in tensorfeed, reported with its stack`

// command is one command: "tensorfeed NAME [flags] ARGS". A name of two
// words ("rec ls") is a subcommand of a group ("rec").
type command struct {
	name    string // "check", "rec ls"
	args    string // the synopsis after the name: "[flags] FILE.rec"
	summary string // one line for the command list
	doc     string // the description that help prints, paragraphs of plain text
	// setup defines the command's flags on fs and returns the function
	// that runs it with the positional arguments, once fs is parsed. The
	// function returns a *usageError for bad arguments.
	setup func(fs *flag.FlagSet) runFunc
}

// runFunc runs a command with its positional arguments.
type runFunc func(ctx context.Context, args []string, env *env) error

// env is what a command writes to.
type env struct {
	stdout, stderr io.Writer
	// progress says whether long commands draw a progress bar on stderr:
	// only when stdout and stderr are both terminals, so that output sent
	// to a file or a pipe never holds one.
	progress bool
	// storage holds the options of package storage with which inputs
	// given as URLs are read; none in the program, where S3 is reached
	// through the AWS_* environment variables (AWS_ENDPOINT_URL for MinIO).
	storage []storage.Option
}

// commands lists the commands, in the order help shows them. Adding a
// command means adding its file and one line here.
var commands = []command{
	checkCommand,
	convertCommand,
	lsCommand,
	im2recListCommand,
	im2recPackCommand,
	recLsCommand,
	recCatCommand,
	showCommand,
	serveCommand,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	e := &env{stdout: os.Stdout, stderr: os.Stderr, progress: progress.IsTerminal(os.Stdout) && progress.IsTerminal(os.Stderr)}
	code := runEnv(ctx, os.Args[1:], e)
	stop()
	os.Exit(code)
}

// run runs the command line args (without the program name), writing to
// stdout and stderr without progress bars, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runEnv(ctx, args, &env{stdout: stdout, stderr: stderr})
}

// runEnv runs the command line args and returns the exit status (see the
// package doc). A panic is a bug in tensorfeed, never the input's fault: it
// is reported with its stack and status 3, so that scripts can tell it from
// a bad file.
func runEnv(ctx context.Context, args []string, e *env) (code int) {
	who := "tensorfeed" // the command running, for the panic's report
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "%s: internal error: %v\n%s", who, r, debug.Stack())
			code = exitInternal
		}
	}()
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return help(ctx, args[1:], e)
	}
	c, rest, err := lookup(args)
	if err != nil {
		fmt.Fprintf(e.stderr, "tensorfeed: %s\n", strings.TrimSuffix(err.Error(), "\n"))
		return exitUsage
	}
	if c == nil { // a group's help
		fmt.Fprint(e.stdout, groupList(args[0]))
		return exitOK
	}
	who += " " + c.name
	fs := newFlagSet(c)
	runner := c.setup(fs)
	pos, err := parseFlags(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(e.stdout, c, fs)
		return exitOK
	}
	if err != nil {
		err = &usageError{err.Error()}
	} else {
		err = runner(ctx, pos, e)
	}
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errReported):
		return exitFailure
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "tensorfeed %s: %s\nusage:\n  tensorfeed %s %s\nRun \"tensorfeed help %s\" for the flags.\n",
			c.name, ue.msg, c.name, c.args, c.name)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "tensorfeed %s: %v\n", c.name, err)
		return exitFailure
	}
}

// lookup finds the command that args name and returns it with the
// arguments after its name. It returns a nil command and no error for a
// group's help ("rec -h"), and a usage error, with the commands it could
// have meant, for an unknown one.
func lookup(args []string) (*command, []string, error) {
	if len(args) > 1 {
		if c := find(args[0] + " " + args[1]); c != nil {
			return c, args[2:], nil
		}
	}
	if c := find(args[0]); c != nil {
		return c, args[1:], nil
	}
	if !isGroup(args[0]) {
		return nil, nil, fmt.Errorf("unknown command %q\n\n%s", args[0], commandList())
	}
	switch {
	case len(args) == 1:
		return nil, nil, fmt.Errorf("%s: missing subcommand\n\n%s", args[0], groupList(args[0]))
	case isHelpFlag(args[1]):
		return nil, nil, nil
	}
	return nil, nil, fmt.Errorf("%s: unknown subcommand %q\n\n%s", args[0], args[1], groupList(args[0]))
}

// find returns the command of that name, or nil.
func find(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// isGroup reports whether name is the first word of two-word commands.
func isGroup(name string) bool {
	for _, c := range commands {
		if strings.HasPrefix(c.name, name+" ") {
			return true
		}
	}
	return false
}

func isHelpFlag(s string) bool { return s == "-h" || s == "-help" || s == "--help" }

// parseFlags parses flags that may come before, between or after the
// positional arguments, and returns the positional ones. "--" ends the
// flags. It returns flag.ErrHelp for -h, -help or --help.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError reports bad command-line arguments; run prints the command's
// synopsis with it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errReported fails a command with exit status 1 after the command has
// reported what went wrong itself.
var errReported = errors.New("failed: reported")
