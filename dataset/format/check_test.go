package format_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/source"
)

// TestCheckLines checks a csv file through the registry: a good file is
// summed up in one line; a line over the maximum ends the check with its
// position, or, under OnBad, goes to the policy and the check goes on
// without a summary.
func TestCheckLines(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte("a,1\nbb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, ok := format.Default().Lookup("csv")
	if !ok || f.Check == nil {
		t.Fatal("the csv format has no Check")
	}
	var out bytes.Buffer
	if err := f.Check(context.Background(), good, &out); err != nil {
		t.Fatal(err)
	}
	if want := good + ": lines: 2 lines, the longest 4 bytes\n"; out.String() != want {
		t.Errorf("summary %q, want %q", out.String(), want)
	}

	bad := filepath.Join(dir, "bad.csv")
	long := strings.Repeat("x", 20)
	if err := os.WriteFile(bad, []byte("a,1\n"+long+"\n"+long+"\nb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := format.CSV(8)
	out.Reset()
	err := short.Check(context.Background(), bad, &out)
	var te *tensorfeed.Error
	if !errors.As(err, &te) || te.Path != bad || te.Line != 2 || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("err = %v, want a positioned error at line 2 of %s", err, bad)
	}
	if out.Len() != 0 {
		t.Errorf("a bad file was summed up: %q", out.String())
	}

	var skipped []error
	p := source.SkipBad(1, source.OnSkip(func(err error) { skipped = append(skipped, err) }))
	if err := short.Check(context.Background(), bad, &out, format.OnBad(p)); err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 2 || out.Len() != 0 {
		t.Errorf("under OnBad: %d bad lines reported (want 2), summary %q (want none)", len(skipped), out.String())
	}
}
