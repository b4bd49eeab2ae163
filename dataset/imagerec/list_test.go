package imagerec_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
)

func TestParseList(t *testing.T) {
	in := "0\t7\tt10k/00000.jpg\n" +
		" 1 \t 2.5 \t -1 \t  a b/c d.png \r\n" + // spaces around fields, CRLF, spaces inside the path
		"\n" +
		"42\t1e3\t0\t0\tx.jpg"
	got, err := imagerec.ParseList(strings.NewReader(in), "in.lst")
	if err != nil {
		t.Fatal(err)
	}
	want := []imagerec.ListEntry{
		{Index: 0, Labels: []float32{7}, Path: "t10k/00000.jpg"},
		{Index: 1, Labels: []float32{2.5, -1}, Path: "a b/c d.png"},
		{Index: 42, Labels: []float32{1000, 0, 0}, Path: "x.jpg"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestParseListErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
		msg  string
	}{
		{"0\t1\ta.jpg\n1\tb.jpg\n", 2, "2 tab-separated fields"},
		{"0 1 a.jpg\n", 1, "1 tab-separated fields"},
		{"\n\nx\t1\ta.jpg\n", 3, `index "x"`},
		{"-1\t1\ta.jpg\n", 1, `index "-1"`},
		{"0\t1\ta\n1\tone\tb.jpg\n", 2, `label 1: "one"`},
		// An empty path field must not turn the last label into the path.
		{"0\t1\t2\t\n", 1, "empty path"},
		{"0\t1\ta.jpg\n1\t1\t2\t  \n", 2, "empty path"},
		{"0\t\ta.jpg\n", 1, `label 1: ""`},
		// A repeated index names both lines.
		{"0\t1\ta.jpg\n\n5\t1\tb.jpg\n0\t2\tc.jpg\n", 4, "index 0 already on line 1"},
	} {
		_, err := imagerec.ParseList(strings.NewReader(c.in), "bad.lst")
		var le *tensorfeed.Error
		if !errors.As(err, &le) || !errors.Is(err, imagerec.ErrList) {
			t.Errorf("%q: err = %v, want a *tensorfeed.Error wrapping ErrList", c.in, err)
			continue
		}
		if le.Line != c.line || le.Path != "bad.lst" || !strings.Contains(err.Error(), c.msg) ||
			!errors.Is(err, tensorfeed.ErrBadData) {
			t.Errorf("%q: %v (line %d), want line %d and %q", c.in, err, le.Line, c.line, c.msg)
		}
	}
}

func TestWriteListRoundTrip(t *testing.T) {
	entries := []imagerec.ListEntry{
		{Index: 3, Labels: []float32{1}, Path: "cat/1.jpg"},
		{Index: 0, Labels: []float32{0.5, 2, 3}, Path: "dog/x y.png"},
	}
	var buf bytes.Buffer
	if err := imagerec.WriteList(&buf, entries); err != nil {
		t.Fatal(err)
	}
	if want := "3\t1.000000\tcat/1.jpg\n0\t0.500000\t2.000000\t3.000000\tdog/x y.png\n"; buf.String() != want {
		t.Fatalf("wrote %q, want %q", buf.String(), want)
	}
	back, err := imagerec.ParseList(&buf, "")
	if err != nil || !reflect.DeepEqual(back, entries) {
		t.Fatalf("read back %+v, %v", back, err)
	}
}

// The testdata .lst files agree with the record headers.
func TestListMatchesRecords(t *testing.T) {
	for _, name := range []string{"mnist_t10k_1000_jpg", "mnist_t10k_1000_jpg_multilabel", "mnist_t10k_1000_png_gray"} {
		entries, err := imagerec.ReadList(tdPath(name, ".lst"))
		if err != nil {
			t.Fatal(err)
		}
		rows := recimages.ReadTSV(t, tdPath(name, ".records.tsv"))
		if len(entries) != len(rows) {
			t.Fatalf("%s: %d entries, %d records", name, len(entries), len(rows))
		}
		for i, e := range entries {
			want := rows[i].Labels
			if rows[i].Flag == 0 {
				want = []float32{rows[i].HeaderLabel}
			}
			if e.Index != rows[i].ID || !reflect.DeepEqual(e.Labels, want) {
				t.Fatalf("%s: entry %d: %+v, record has id %d labels %v", name, i, e, rows[i].ID, want)
			}
		}
	}
}
