package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The hints of the CSV reader's messages name check's flags, not the Go
// options: iris.data's string labels need --classes.
func TestCheckCSVHintsNameFlags(t *testing.T) {
	iris := filepath.Join("..", "..", "dataset", "csv", "testdata", "iris.data")
	dir := writeFiles(t, map[string]string{"inf.csv": "1,2\n1,inf\n", "long.csv": "1,2\n" + strings.Repeat("1", 300) + "\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--header", "--label-cols", "-1", iris}, `iris.data: line 2, column 17: member "field 5": csv: not a number: "Iris-setosa" (string labels need --classes)`},
		{[]string{"--all", "--header", "--label-cols", "Name", iris}, `iris.data: line 151, column 17: member "field 5": csv: not a number: "Iris-virginica" (string labels need --classes)`},
		{[]string{"--finite", filepath.Join(dir, "inf.csv")}, `inf.csv: line 2, column 3: member "field 2": csv: not a number: "inf" is not finite (--finite)`},
		{[]string{"--max-line-bytes", "100", filepath.Join(dir, "long.csv")}, `bytes (--max-line-bytes)`},
	} {
		code, stdout, stderr := runCmd(append([]string{"check"}, c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr[:min(len(stderr), 500)])
		}
		for _, option := range []string{"Classes)", "(Finite)", "(MaxLineBytes)"} {
			if i := strings.Index(stderr, option); i >= 0 {
				t.Errorf("%q: names the option %s: %q", c.args, option, stderr[max(0, i-200):i+len(option)])
			}
		}
	}
	// With --classes the labels are read.
	code, stdout, stderr := runCmd("check", "--header", "--label-cols", "Name", "--classes", "Iris-setosa,Iris-versicolor,Iris-virginica", iris)
	if code != 0 || !strings.Contains(stdout, "iris.data: CSV: 150 rows of 4 data values and 1 labels; labels in [0, 2], 3 distinct") {
		t.Errorf("--classes: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Without label columns check says so, rather than describing the zero
// label the reader gives each row.
func TestCheckCSVNoLabels(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.csv": "1,2,3\n4,5,6\n"})
	path := filepath.Join(dir, "a.csv")
	code, stdout, stderr := runCmd("check", path)
	if code != 0 || stdout != path+": CSV: 2 rows of 3 data values, no label columns\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd("check", "--label-cols", "0", path)
	if code != 0 || !strings.HasPrefix(stdout, path+": CSV: 2 rows of 2 data values and 1 labels; labels in [1, 4], 2 distinct") {
		t.Errorf("--label-cols 0: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
