package checkstat

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestLabels(t *testing.T) {
	var s Labels
	if got := s.String(); got != "no labels" {
		t.Errorf("empty: %q", got)
	}
	for _, v := range []float64{3, 1, 3} {
		s.Add(v)
	}
	if got, want := s.String(), "labels in [1, 3], 2 distinct: 1:1 3:2"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	var many Labels
	for i := range MaxDistinct + 5 {
		many.Add(float64(i))
	}
	if got := many.String(); !strings.Contains(got, "more than 1000 distinct") || len(many.counts) != MaxDistinct {
		t.Errorf("overflow: %q, %d values held", got, len(many.counts))
	}
}

// A bar without WithBars, or not live, draws nothing.
func TestBarQuiet(t *testing.T) {
	var w bytes.Buffer
	for _, ctx := range []context.Context{context.Background(), WithBars(context.Background(), &w, false)} {
		b := Bar(ctx, "x.rec", BarMinBytes*2)
		b.Add(100)
		b.Finish()
	}
	if w.Len() != 0 {
		t.Errorf("a bar that is not live wrote %q", w.String())
	}
}

// A missing local file is the system's error, naming it.
func TestOpenMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.idx")
	_, err := Open(context.Background(), p, nil)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "open "+p+": no such file or directory" {
		t.Fatalf("%v", err)
	}
}
