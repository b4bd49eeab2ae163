package format

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"

	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
)

// FuzzLinesSkip checks the line splitter with a policy that skips every
// long line: it never panics, never yields a line over the maximum, each
// line is the input at its offset followed by a line ending (or the end),
// and the lines kept plus the lines skipped are all the lines of the
// input.
func FuzzLinesSkip(f *testing.F) {
	for _, s := range []string{"", "a,b\n", "a\r\nb", "long line over sixteen bytes\nok", "x\nlong line over sixteen bytes"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 16
		p := source.SkipBad(1)
		counter := (*skipcount.Policy)(p).Pass(-1, nil)
		var kept int64
		prev := int64(-1)
		for r, err := range lines(bytes.NewReader(in), "f", max, counter) {
			if err != nil {
				t.Fatalf("error %v with SkipBad(1) on %q", err, in)
			}
			if len(r.Data) > max || r.Offset <= prev || !bytes.HasPrefix(in[r.Offset:], r.Data) {
				t.Fatalf("record %+v of %q", r, in)
			}
			end := r.Offset + int64(len(r.Data))
			if rest := in[end:]; len(rest) > 0 && !bytes.HasPrefix(rest, []byte("\n")) && !bytes.HasPrefix(rest, []byte("\r\n")) {
				t.Fatalf("line %d not followed by a line ending in %q", r.Index, in)
			}
			prev = r.Offset
			kept++
		}
		want := int64(bytes.Count(in, []byte("\n")))
		if len(in) > 0 && in[len(in)-1] != '\n' {
			want++
		}
		if kept+p.Skipped() != want {
			t.Fatalf("%d lines kept and %d skipped of %d in %q", kept, p.Skipped(), want, in)
		}
	})
}

func TestLinesTooLong(t *testing.T) {
	in := "ok\n" + strings.Repeat("x", 100) + "\nafter\n"
	var got []string
	var err error
	for r, e := range lines(strings.NewReader(in), "f.csv", 50, nil) {
		if e != nil {
			err = e
			break
		}
		got = append(got, string(r.Data))
	}
	var fe *tensorfeed.Error
	if !errors.As(err, &fe) || fe.Line != 2 || fe.Offset != 3 || !errors.Is(err, errLineTooLong) || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("error %v", err)
	}
	if len(got) != 1 || got[0] != "ok" {
		t.Fatalf("lines %q", got)
	}
}

// FuzzLines checks that Lines never panics, never yields a line over the
// maximum, and that the lines and their offsets cover the input.
func FuzzLines(f *testing.F) {
	for _, s := range []string{"", "a,b\n", "a\r\nb", "\n\n", "x\rx\n", "long line over sixteen bytes\nok"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 16
		var next int64
		for r, err := range lines(bytes.NewReader(in), "f", max, nil) {
			if err != nil {
				return
			}
			if len(r.Data) > max || r.Offset != next || !bytes.HasPrefix(in[r.Offset:], r.Data) {
				t.Fatalf("record %+v at %d of %q", r, next, in)
			}
			next = r.Offset + int64(len(r.Data))
			if next < int64(len(in)) && in[next] == '\r' {
				next++
			}
			if next < int64(len(in)) {
				if in[next] != '\n' {
					t.Fatalf("line %d not followed by a line ending in %q", r.Index, in)
				}
				next++
			}
		}
	})
}
