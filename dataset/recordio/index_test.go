package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

func TestReadIndexTestdata(t *testing.T) {
	for _, name := range tsvFiles {
		ix, err := recordio.ReadIndex(context.Background(), idxPath(name))
		if err != nil {
			t.Fatal(err)
		}
		rows := readTSV(t, name)
		if ix.Len() != len(rows) {
			t.Fatalf("%s: %d entries, want %d", name, ix.Len(), len(rows))
		}
		for i, row := range rows {
			if e := ix.Entry(i); e.Key != row.key || e.Offset != row.offset {
				t.Errorf("%s: entry %d = %+v, want key %d offset %d", name, i, e, row.key, row.offset)
			}
			if off, ok := ix.Lookup(row.key); !ok || off != row.offset {
				t.Errorf("%s: Lookup(%d) = %d, %v", name, row.key, off, ok)
			}
		}
		var out bytes.Buffer
		n, err := recordio.WriteIndex(ix, &out)
		if err != nil || n != int64(out.Len()) || !bytes.Equal(out.Bytes(), mustRead(t, idxPath(name))) {
			t.Errorf("%s: WriteTo does not give the file back (n=%d, err=%v)", name, n, err)
		}
	}
}

func TestParseIndex(t *testing.T) {
	ix, err := recordio.ParseIndex(strings.NewReader("7\t0\n 3 \t 16\n\n-2 40\r\n"), "x.idx")
	if err != nil {
		t.Fatal(err)
	}
	want := []recordio.IndexEntry{{7, 0}, {3, 16}, {-2, 40}}
	got := entries(ix)
	if len(got) != len(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %v, want %v", i, got[i], want[i])
		}
	}
	if _, ok := ix.Lookup(4); ok {
		t.Error("Lookup of a missing key succeeded")
	}
}

func TestParseIndexErrors(t *testing.T) {
	cases := []struct {
		name, in string
		line     int
		off      int64
		msg      string
	}{
		{"one field", "0\t0\n1\n", 2, 4, "want"},
		{"three fields", "0\t0\t0\n", 1, 0, "want"},
		{"bad key", "0\t0\nabc\t8\n", 2, 4, "bad key \"abc\""},
		{"bad offset", "0\t0x10\n", 1, 0, "bad offset"},
		{"negative offset", "0\t-4\n", 1, 0, "bad offset"},
		{"duplicate key", "0\t0\n1\t8\n0\t16\n", 3, 8, "duplicate key 0 (first on line 1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := recordio.ParseIndex(strings.NewReader(c.in), "x.idx")
			var fe *tensorfeed.Error
			if !errors.As(err, &fe) || !errors.Is(err, recordio.ErrFormat) {
				t.Fatalf("error %v, want a tensorfeed.Error", err)
			}
			if fe.Line != c.line || fe.Offset != c.off || fe.Record != -1 {
				t.Errorf("error at line %d byte %d record %d, want line %d byte %d", fe.Line, fe.Offset, fe.Record, c.line, c.off)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "x.idx") {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

func TestNewIndexErrors(t *testing.T) {
	if _, err := recordio.NewIndex([]recordio.IndexEntry{{1, 0}, {1, 8}}); !errors.Is(err, recordio.ErrFormat) {
		t.Errorf("duplicate keys: %v", err)
	}
	if _, err := recordio.NewIndex([]recordio.IndexEntry{{1, -8}}); !errors.Is(err, recordio.ErrFormat) {
		t.Errorf("negative offset: %v", err)
	}
}

func TestReadIndexMissingFile(t *testing.T) {
	if _, err := recordio.ReadIndex(context.Background(), "no/such.idx"); err == nil {
		t.Error("no error for a missing file")
	}
}
