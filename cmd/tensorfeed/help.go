package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

const intro = `tensorfeed works with the data files tensorfeed reads: it checks them, converts
datasets into RecordIO, TFRecord, WebDataset or Parquet shards, packs folders of
images into RecordIO image records (as MXNet's im2rec.py does), lists records and
draws the images of a dataset into a PNG grid.`

// help runs "tensorfeed help [COMMAND]", which is "tensorfeed COMMAND -h".
func help(ctx context.Context, args []string, e *env) int {
	switch {
	case len(args) == 0:
		printUsage(e.stdout)
		return exitOK
	case len(args) == 1 && (isHelpFlag(args[0]) || args[0] == "help"):
		// "help -h" and "help help" describe help itself; a flag is no
		// command's name.
		fmt.Fprint(e.stdout, helpUsage)
		return exitOK
	case !isHelpFlag(args[len(args)-1]): // "help show -h" is "help show"
		args = append(slices.Clip(args), "-h")
	}
	return runEnv(ctx, args, e)
}

// helpUsage is what "help -h" prints.
const helpUsage = `usage: tensorfeed help [COMMAND]

Help describes COMMAND: its synopsis, what it does, every flag it takes and the exit statuses. Without
COMMAND it lists the commands; with a group's name ("rec") it lists the group's subcommands.
"tensorfeed COMMAND -h" prints the same as "tensorfeed help COMMAND".

` + exitStatusHelp + "\n"

// printUsage prints the introduction, the command list and the exit
// statuses.
func printUsage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nusage: tensorfeed <command> [flags] [arguments]\n\n%s\n%s\n", intro, commandList(), exitStatusHelp)
}

// commandList lists the commands with their summaries and says how to get
// a command's help.
func commandList() string {
	var b strings.Builder
	b.WriteString("commands:\n")
	width := len("help [command]")
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintf(&b, "  %-*s  %s\n", width, "help [command]", "describe a command and every flag it takes")
	b.WriteString("\nRun \"tensorfeed help <command>\" or \"tensorfeed <command> -h\" for a command's flags.\n")
	return b.String()
}

// groupList lists the subcommands of a group ("rec").
func groupList(group string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: tensorfeed %s <subcommand> [flags] [arguments]\n\nsubcommands:\n", group)
	for _, c := range commands {
		if strings.HasPrefix(c.name, group+" ") {
			fmt.Fprintf(&b, "  tensorfeed %s %s\n      %s\n", c.name, c.args, c.summary)
		}
	}
	fmt.Fprintf(&b, "\nRun \"tensorfeed help %s <subcommand>\" for a subcommand's flags.\n", group)
	return b.String()
}

// newFlagSet returns the empty flag set of c; parse errors are returned,
// not printed.
func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// printHelp prints c's synopsis, description, flags and exit statuses.
func printHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: tensorfeed %s %s\n\n%s\n", c.name, c.args, wrap(strings.TrimSpace(c.doc), "", lineWidth))
	if flags := flagHelp(fs); flags != "" {
		fmt.Fprintf(w, "\nflags:\n%s", flags)
	}
	fmt.Fprintf(w, "\n%s\n", exitStatusHelp)
}

// lineWidth is the width help text is wrapped to.
const lineWidth = 100

// flagHelp describes every flag of fs, one or more lines each: its name, the
// name of its value, its description and its default.
func flagHelp(fs *flag.FlagSet) string {
	type row struct{ left, text string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if value != "" {
			left += " " + value
		}
		switch f.DefValue {
		case "", "false", "0": // a zero default goes without saying
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	width = min(width, 24)
	var b strings.Builder
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		if len(r.left) > width {
			fmt.Fprintf(&b, "  %s\n%s", r.left, indent)
		} else {
			fmt.Fprintf(&b, "  %-*s  ", width, r.left)
		}
		b.WriteString(wrap(r.text, indent, lineWidth-len(indent)))
		b.WriteByte('\n')
	}
	return b.String()
}

// wrap fills the words of text into lines of at most width characters,
// keeping its line breaks; lines after the first start with indent.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	for i, para := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteString("\n" + indent)
		}
		n := 0
		lead := len(para) - len(strings.TrimLeft(para, " "))
		if lead > 0 { // an indented line (a list, an example) is kept as is
			b.WriteString(para)
			continue
		}
		for j, word := range strings.Fields(para) {
			if j > 0 {
				if n+1+len(word) > width {
					b.WriteString("\n" + indent)
					n = 0
				} else {
					b.WriteByte(' ')
					n++
				}
			}
			b.WriteString(word)
			n += len(word)
		}
	}
	return b.String()
}
