package format

import (
	"bytes"
	"testing"

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
