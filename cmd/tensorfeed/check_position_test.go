package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
)

// check prints the position of a bad file of any format the same way: from
// the error's *tensorfeed.Error, "PATH: POSITION: CAUSE", one line.
func TestCheckPrintsEveryFormatsPosition(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	// A RecordIO record whose part claims 5 bytes, of which 3 are there.
	writeFile(t, at("cut.rec"), append([]byte{0x0a, 0x23, 0xd7, 0xce, 5, 0, 0, 0}, "abc"...))
	// A TFRecord header whose length's CRC is wrong.
	writeFile(t, at("bad.tfrecord"), append([]byte{4, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}, "abcd0000"...))
	writeFile(t, at("bad.csv"), []byte("1,2\n3,x\n"))
	writeFile(t, at("bad.tar"), bytes.Repeat([]byte("x"), 1024))
	writeFile(t, at("bad.parquet"), []byte("XXXX not a Parquet file PAR1"))
	writeFile(t, at("bad.lst"), []byte("0\t1\ta.jpg\n1\tx\tb.jpg\n"))
	// An IDX label file whose header declares 5 labels, of which 3 are there.
	writeFile(t, at("cut-idx1-ubyte"), []byte{0, 0, 8, 1, 0, 0, 0, 5, 7, 2, 1})
	cases := []struct{ file, want string }{
		{"cut.rec", "cut.rec: record 0 at byte 0: recordio: bad format: part length 5 (padded 8) goes past the end of the input"},
		{"bad.tfrecord", "bad.tfrecord: record 0 at byte 0: tfrecord: bad format: length checksum mismatch"},
		{"bad.csv", `bad.csv: line 2, column 3: member "field 2": csv: not a number: "x"`},
		{"bad.tar", "bad.tar: byte 0: webdataset: "},
		{"bad.parquet", `bad.parquet: byte 0: parquet: bad format: bad magic "XXXX"`},
		{"bad.lst", "bad.lst: line 2: imagerec: bad .lst file: "},
		{"cut-idx1-ubyte", "cut-idx1-ubyte: record 3 at byte 11: idx: bad format: file ends in record 3 of 5"},
	}
	for _, c := range cases {
		code, _, stderr := runCmd("check", at(c.file))
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, filepath.Join(dir, c.want)) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.file, code, stderr, filepath.Join(dir, c.want))
		}
	}
}

// positioned takes the file from the error when it names one, and from
// the path checked when it does not; an error without a position is the
// path and the error.
func TestPositioned(t *testing.T) {
	inner := &tensorfeed.Error{Offset: 8, Record: -1, Member: "x.npy", Err: errors.New("bad")}
	if got, want := positioned("a.tar", fmt.Errorf("pass: %w", inner)), `a.tar: byte 8: member "x.npy": bad`; got != want {
		t.Errorf("no Path: %q, want %q", got, want)
	}
	if inner.Path != "" {
		t.Error("positioned changed the error")
	}
	named := &tensorfeed.Error{Path: "b.rec", Offset: 4, Record: 1, Err: errors.New("bad")}
	if got, want := positioned("a.tar", named), "b.rec: record 1 at byte 4: bad"; got != want {
		t.Errorf("with Path: %q, want %q", got, want)
	}
	if got, want := positioned("a.tar", errors.New("open a.tar: denied")), "a.tar: open a.tar: denied"; got != want {
		t.Errorf("no position: %q, want %q", got, want)
	}
}
