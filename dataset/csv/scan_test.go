package csv

import (
	"bytes"
	"context"
	stdcsv "encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
)

// FuzzScanMatchesEncodingCSV checks that the reader's scanner splits any
// input into the same records, fields, positions and errors as
// encoding/csv (without LazyQuotes or TrimLeadingSpace), when no limit is
// reached. A leading byte order mark is the one difference by design: the
// scanner drops it.
func FuzzScanMatchesEncodingCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "1,\"2\n3\",4\n", "\"a\"\"b\",c\r\n\r\nd", "# c\n1;2\n", "a\"b,c\n", "\"a\"b\n",
		"\"abc", "x,\"y\nz\"\"\n\",w\n1\n", "\n\n1\r", "é,€\n\"€\"€\n", ",,\n,\n",
	} {
		f.Add([]byte(s), byte(','), byte(0))
		f.Add([]byte(s), byte(';'), byte('#'))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, comma, comment byte) {
		if bytes.HasPrefix(data, byteOrderMark) {
			return
		}
		c := config{comma: rune(comma), comment: rune(comment), maxLine: maxLimit, maxField: maxLimit}
		if !validDelim(c.comma) || (c.comment != 0 && !validDelim(c.comment)) || c.comma == c.comment || comma >= 0x80 || comment >= 0x80 {
			return
		}
		path := filepath.Join(dir, "scan.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sf, err := c.open(context.Background(), path, false)
		if err != nil {
			t.Fatal(err)
		}
		defer sf.f.Close()
		std := stdcsv.NewReader(bytes.NewReader(data))
		std.Comma, std.Comment, std.FieldsPerRecord = c.comma, c.comment, -1
		for n := 0; ; n++ {
			want, werr := std.Read()
			gerr := sf.read()
			if werr == io.EOF || gerr == io.EOF {
				if werr != gerr {
					t.Fatalf("record %d: encoding/csv %v, scanner %v", n, werr, gerr)
				}
				return
			}
			var wpe *stdcsv.ParseError
			if errors.As(werr, &wpe) {
				var gpe *tensorfeed.Error
				if !errors.As(gerr, &gpe) || !errors.Is(gerr, wpe.Err) || gpe.Line != wpe.Line || gpe.Column != wpe.Column {
					t.Fatalf("record %d: encoding/csv %v, scanner %v", n, werr, gerr)
				}
				continue
			}
			if werr != nil || gerr != nil {
				t.Fatalf("record %d: encoding/csv %v, scanner %v", n, werr, gerr)
			}
			got := make([]string, sf.n())
			for i := range got {
				got[i] = sf.field(i)
				wl, wc := std.FieldPos(i)
				if gl, gc := sf.pos(i); gl != wl || gc != wc {
					t.Fatalf("record %d field %d at %d:%d, encoding/csv says %d:%d", n, i, gl, gc, wl, wc)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("record %d: %q, encoding/csv %q", n, got, want)
			}
		}
	})
}

// TestScanColumnsAfterBOM checks that the columns of the fields of a first
// line after a byte order mark count the mark's bytes, as the file's
// bytes do, whether the line is split in place (no quotes) or field by
// field.
func TestScanColumnsAfterBOM(t *testing.T) {
	for _, line := range []string{"ab,cd,e\n", "ab,\"cd\",e\n"} {
		path := filepath.Join(t.TempDir(), "bom.csv")
		if err := os.WriteFile(path, []byte("\ufeff"+line), 0o644); err != nil {
			t.Fatal(err)
		}
		c := config{comma: ',', maxLine: maxLimit, maxField: maxLimit}
		sf, err := c.open(context.Background(), path, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := sf.read(); err != nil {
			t.Fatal(err)
		}
		for i, want := range []int{4, 7, 4 + len(line) - 2} {
			if l, col := sf.pos(i); l != 1 || col != want {
				t.Errorf("%q: field %d at %d:%d, want 1:%d", line, i, l, col, want)
			}
		}
		if got := []string{sf.field(0), sf.field(1), sf.field(2)}; !slices.Equal(got, []string{"ab", "cd", "e"}) {
			t.Errorf("%q: fields %q", line, got)
		}
		sf.f.Close()
	}
}
