package progress_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/progress"
)

func TestBarLineMode(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "epoch 1/3", 100, "samples")
	for range 10 {
		b.Add(10)
	}
	_, r := b.Finish()
	b.Finish() // a second Finish prints nothing
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	// Quarters 1, 2, 3 and the final line.
	if len(lines) != 4 {
		t.Fatalf("got %d lines:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{" 30% 30/100", " 50% 50/100", " 80% 80/100", "100% 100/100"} {
		if !strings.Contains(lines[i], want) || !strings.HasPrefix(lines[i], "epoch 1/3 [") {
			t.Errorf("line %d = %q, want it to contain %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[3], "samples/s in ") || strings.Contains(lines[3], ">") {
		t.Errorf("final line = %q", lines[3])
	}
	if r <= 0 {
		t.Errorf("rate = %v", r)
	}
	if strings.Contains(buf.String(), "\r") {
		t.Error("carriage return written to a non-terminal")
	}
}

func TestBarUnknownTotal(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "reading", 0, "records")
	b.Add(7)
	b.Finish()
	if got := buf.String(); !strings.HasPrefix(got, "reading 7 ") || !strings.Contains(got, "records/s") {
		t.Errorf("output = %q", got)
	}
}
