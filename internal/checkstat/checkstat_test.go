package checkstat

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
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

// The meter of ctx is started only for a large file; without one, or for
// a small file, Bar does nothing.
func TestBarMeter(t *testing.T) {
	var started []string
	m := &countMeter{}
	ctx := WithMeter(context.Background(), func(name string, size int64) Meter {
		started = append(started, name)
		return m
	})
	for _, c := range []struct {
		ctx  context.Context
		size int64
	}{{context.Background(), BarMinBytes * 2}, {ctx, BarMinBytes - 1}, {ctx, BarMinBytes}} {
		b := Bar(c.ctx, "x.rec", c.size)
		io.Copy(io.Discard, Counting(strings.NewReader("abc"), b))
		b.Finish()
	}
	if len(started) != 1 || m.n != 3 || m.finished != 1 {
		t.Errorf("started %q, counted %d bytes, finished %d times; want one meter, 3 bytes, 1 finish", started, m.n, m.finished)
	}
}

type countMeter struct{ n, finished int }

func (m *countMeter) Add(n int) { m.n += n }
func (m *countMeter) Finish()   { m.finished++ }

// A missing local file is the system's error, naming it.
func TestOpenMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.idx")
	_, err := Open(context.Background(), p, nil)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "open "+p+": no such file or directory" {
		t.Fatalf("%v", err)
	}
}

func TestImages(t *testing.T) {
	var s Images
	if got := s.String(); got != "no images" {
		t.Errorf("empty: %q", got)
	}
	s.Add(4, 3, 3)
	s.Add(2, 5, 1)
	s.Add(4, 4, 3)
	if got, want := s.String(), "images 2-4 x 3-5 pixels (width x height), 1 with 1 channels, 2 with 3 channels"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// Exists is true for a regular local file only.
func TestExists(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.rec")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !Exists(ctx, p, nil) || Exists(ctx, dir, nil) || Exists(ctx, filepath.Join(dir, "none"), nil) {
		t.Errorf("Exists: file %v, folder %v, missing %v", Exists(ctx, p, nil), Exists(ctx, dir, nil), Exists(ctx, filepath.Join(dir, "none"), nil))
	}
}
