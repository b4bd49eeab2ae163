package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
)

func TestCheckUsage(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string // part of stdout
		stderr string // part of stderr
	}{
		{[]string{"check"}, 2, "", "check takes at least one file"},
		{[]string{"check", "--format", "gif", "x"}, 2, "", `unknown --format "gif"`},
		{[]string{"check", "--bogus", "x"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"check", "--delimiter", "ab", "x"}, 2, "", "--delimiter"},
		{[]string{"check", "--delimiter", `"`, "x"}, 2, "", "--delimiter"},
		{[]string{"check", "--comment", ",", "x"}, 2, "", "--comment and --delimiter"},
		{[]string{"check", "--label-cols", "species", "x"}, 2, "", "names need --header"},
		{[]string{"check", "--skip-rows", "-1", "x"}, 2, "", "--skip-rows"},
		{[]string{"check", "--max-line-bytes", "0", "x"}, 2, "", "--max-line-bytes"},
		{[]string{"check", "no/such/file.csv"}, 1, "", "no/such/file.csv: open no/such/file.csv"},
		{[]string{"help"}, 0, "\n  check ", ""},
		{[]string{"help", "check"}, 0, "usage: tensorfeed check [flags] PATH...", ""},
	}
	for _, c := range cases {
		code, stdout, stderr := runCmd(c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
		if c.code == 2 && !strings.Contains(stderr, "usage:\n  tensorfeed check [flags] PATH...") {
			t.Errorf("%q: usage error without the usage: %q", c.args, stderr)
		}
	}
}

// -h describes every flag.
func TestCheckHelp(t *testing.T) {
	code, stdout, stderr := runCmd("check", "-h")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, f := range []string{"all", "format", "delimiter", "header", "skip-rows", "comment", "label-cols", "data-cols", "classes", "finite", "max-line-bytes"} {
		if !regexp.MustCompile(`(?m)^  --` + f + `\b.*  \S`).MatchString(stdout) {
			t.Errorf("-h does not describe -%s:\n%s", f, stdout)
		}
	}
}

// write writes the files into a new folder and returns its path.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		writeFile(t, filepath.Join(dir, name), []byte(data))
	}
	return dir
}

// Without --all the first bad record of a file is reported; with --all,
// every one. Each file is checked, and the exit status is 1 when any is bad.
func TestCheckAll(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"bad.lst":  "0\t0\ta.jpg\n1\tx\tb.jpg\n2\t0\t../c.jpg\n0\t0\td.jpg\n3\t0\te.jpg\n",
		"bad.csv":  "1,2,0\n1,x,0\n1,2\n4,5,6\n",
		"good.csv": "1,2,0\n",
	})
	lst, csvBad, csvGood := filepath.Join(dir, "bad.lst"), filepath.Join(dir, "bad.csv"), filepath.Join(dir, "good.csv")
	cases := []struct {
		args []string
		want []string // the lines of stderr, in order, after the folder
	}{
		{[]string{lst}, []string{"bad.lst: line 2: imagerec: bad .lst file: label 1:"}},
		{[]string{"--all", lst}, []string{"bad.lst: line 2: imagerec: bad .lst file: label 1:", "bad.lst: line 3: imagerec: bad .lst file: image path", "bad.lst: line 4: imagerec: bad .lst file: index 0 repeated: line 1"}},
		{[]string{csvBad}, []string{`bad.csv: line 2, column 3: member "field 2": csv: not a number`}},
		{[]string{"--all", csvBad}, []string{`bad.csv: line 2, column 3: member "field 2": csv: not a number`, `bad.csv: line 3, column 4: member "field 3": csv: wrong number of fields`}},
		{[]string{csvGood, "--all", lst, csvBad}, []string{"bad.lst: line 2", "bad.lst: line 3", "bad.lst: line 4", "bad.csv: line 2", "bad.csv: line 3"}},
	}
	for _, c := range cases {
		code, stdout, stderr := runCmd(append([]string{"check"}, c.args...)...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 1 || len(lines) != len(c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and %d lines", c.args, code, stderr, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(lines[i], filepath.Join(dir, w)) {
				t.Errorf("%q: stderr line %d = %q, want %q...", c.args, i+1, lines[i], w)
			}
		}
		if slicesContainsPath(c.args, csvGood) != strings.Contains(stdout, csvGood+": CSV: 1 rows") {
			t.Errorf("%q: stdout %q", c.args, stdout)
		}
	}
}

func slicesContainsPath(args []string, p string) bool {
	for _, a := range args {
		if a == p {
			return true
		}
	}
	return false
}

// --all goes past bad images, and --format rec checks only the framing.
func TestCheckRecordsAll(t *testing.T) {
	dir := t.TempDir()
	cases, err := badinput.Write(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var corrupt string
	for _, c := range cases {
		if c.Name == "img_corrupt_jpeg" {
			corrupt = c.Path
		}
	}
	// Two bad images: records 1 and 3.
	data, err := os.ReadFile(corrupt)
	if err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.rec")
	writeFile(t, two, append(data, data...))
	code, _, stderr := runCmd("check", two)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, two+": record 1 at byte ") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCmd("check", "--all", two)
	if code != 1 || strings.Count(stderr, "\n") != 2 || !strings.Contains(stderr, two+": record 4 at byte ") {
		t.Errorf("--all: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCmd("check", "--format", "recordio", two)
	if code != 1 || !strings.HasPrefix(stderr, two+": record 1 at byte ") {
		t.Errorf("--format recordio: exit %d, stderr %q", code, stderr)
	}
}

// The formats are named as the registry names them: an old name is
// refused with the new one, so that scripts learn it.
func TestCheckRenamedFormats(t *testing.T) {
	for old, want := range map[string]string{"rec": "recordio", "imagerec": "recordio", "recidx": "recordio", "lines": "csv --lines"} {
		code, _, stderr := runCmd("check", "--format", old, "x")
		if code != 2 || !strings.Contains(stderr, "--format "+old+" is now --format "+want+",") {
			t.Errorf("--format %s: exit %d, stderr %q", old, code, stderr)
		}
	}
	code, _, stderr := runCmd("show", "--grid", "o.png", "--format", "imagerec", "x")
	if code != 2 || !strings.Contains(stderr, "--format imagerec is now --format recordio,") {
		t.Errorf("show --format imagerec: exit %d, stderr %q", code, stderr)
	}
}

// An .idx given to check is checked against the .rec beside it.
func TestCheckIndexFile(t *testing.T) {
	dir := t.TempDir()
	cases, err := badinput.Write(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Index == "" {
			continue
		}
		code, stdout, stderr := runCmd("check", c.Index)
		if c.Good && (code != 0 || !strings.Contains(stdout, "RecordIO: 3 records")) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", c.Name, code, stdout, stderr)
		}
		if !c.Good && (code != 1 || !strings.HasPrefix(stderr, c.Index+": line ")) {
			t.Errorf("%s: exit %d, stderr %q", c.Name, code, stderr)
		}
	}
}

// panicWriter panics on every write, as a bug below check would.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("write to a broken writer") }

// A panic inside check is an internal error, exit status 3, with its stack.
func TestCheckPanicIsInternalError(t *testing.T) {
	dir := writeFiles(t, map[string]string{"good.csv": "1,2,0\n"})
	var stderr strings.Builder
	code := run(context.Background(), []string{"check", filepath.Join(dir, "good.csv")}, panicWriter{}, &stderr)
	if code != 3 || !strings.Contains(stderr.String(), "tensorfeed check: internal error: write to a broken writer") ||
		!strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("exit %d, stderr %q; want 3 and the panic with its stack", code, stderr.String())
	}
}
