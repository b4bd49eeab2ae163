package format_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/format"
)

// FuzzLines checks that Lines never panics, never yields a line over the
// maximum, and that the lines and their offsets cover the input.
func FuzzLines(f *testing.F) {
	for _, s := range []string{"", "a,b\n", "a\r\nb", "\n\n", "x\rx\n", "long line over sixteen bytes\nok"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 16
		var next int64
		for r, err := range format.Lines(bytes.NewReader(in), "f", max) {
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

// FuzzDetect checks that detection never panics on any head.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("a,b\n"))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte{0, 0, 8, 1, 0, 0, 0, 1, 7})
	f.Fuzz(func(t *testing.T, head []byte) {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, head, 0o644); err != nil {
			t.Fatal(err)
		}
		format.Default().Detect(t.Context(), path)
	})
}
