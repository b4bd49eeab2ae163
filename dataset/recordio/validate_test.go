package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// Every .idx of the test data matches its .rec.
func TestValidateIndexTestdata(t *testing.T) {
	for _, name := range allRecFiles {
		ix, err := recordio.ReadIndex(context.Background(), idxPath(name))
		if err != nil {
			t.Fatal(err)
		}
		rec := mustRead(t, recPath(name))
		if err := recordio.ValidateIndex(bytes.NewReader(rec), int64(len(rec)), recPath(name), ix); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// An index that does not describe its .rec exactly is refused with an error
// naming the .idx file and line, before any record is read.
func TestValidateIndex(t *testing.T) {
	rec := mustRead(t, recPath("multipart_edge_cases"))
	good := string(mustRead(t, idxPath("multipart_edge_cases")))
	lines := strings.SplitAfter(strings.TrimSuffix(good, "\n"), "\n")
	size := int64(len(rec))
	// Record 3 of the edge cases (offset 48) is split in three parts, at
	// 48, 64 and 76.
	cases := []struct {
		name, idx string
		size      int64 // 0: the whole file
		msg       string
	}{
		{"past the end", good + fmt.Sprintf("99\t%d\n", size), 0, "line 13: key 99 at offset"},
		{"far past the end", good + "99\t999999\n", 0, "at or past the end of the file"},
		{"truncated rec", good, 200, "past the end"},
		{"unaligned", strings.Replace(good, "2\t24\n", "2\t26\n", 1), 0, "line 3: key 2 at offset 26 of x.rec: not 4-byte aligned"},
		{"same offset twice", strings.Replace(good, "2\t24\n", "2\t16\n", 1), 0, "line 3: key 2 at offset 16 of x.rec: the same offset as line 2 (key 1)"},
		{"missing entry", strings.Replace(good, "2\t24\n", "", 1), 0, "line 3: key 3 at offset 48 of x.rec: the previous indexed record ends at offset 24: the 24 bytes between are not indexed"},
		{"middle part of a record", good + "99\t64\n", 0, "line 13: key 99 at offset 64 of x.rec: inside the record at offset 48, which runs to offset 92"},
		{"payload of a record", good + "99\t8\n", 0, "line 13: key 99 at offset 8 of x.rec: inside the record at offset 0"},
		{"first not at 0", strings.Join(lines[1:], ""), 0, "bytes before it that no entry covers"},
		{"tail not indexed", strings.Join(lines[:len(lines)-1], ""), 0, "the rest is not indexed"},
		{"empty index", "", 0, "the index is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ix, err := recordio.ParseIndex(strings.NewReader(c.idx), "x.idx")
			if err != nil {
				t.Fatal(err)
			}
			sz := size
			if c.size > 0 {
				sz = c.size
			}
			err = recordio.ValidateIndex(bytes.NewReader(rec[:sz]), sz, "x.rec", ix)
			var fe *tensorfeed.Error
			if !errors.As(err, &fe) || !errors.Is(err, recordio.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("err = %v, want a *tensorfeed.Error wrapping ErrFormat and ErrBadData", err)
			}
			// "line N: " at the start of msg is the error's Line.
			msg := c.msg
			var line int
			if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
				msg = msg[strings.Index(msg, ":")+2:]
				if fe.Line != line || fe.Path != "x.idx" {
					t.Errorf("err at %s line %d, want x.idx line %d", fe.Path, fe.Line, line)
				}
			}
			if !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "x.idx") {
				t.Errorf("err = %q, want it to name x.idx and say %q", err, c.msg)
			}
		})
	}
	empty, _ := recordio.NewIndex(nil)
	if err := recordio.ValidateIndex(bytes.NewReader(nil), 0, "empty.rec", empty); err != nil {
		t.Errorf("empty index of an empty file: %v", err)
	}
	built, _ := recordio.NewIndex([]recordio.IndexEntry{{Key: 5, Offset: 0}, {Key: 6, Offset: 3}})
	err := recordio.ValidateIndex(bytes.NewReader(rec), size, "x.rec", built)
	if err == nil || !strings.Contains(err.Error(), "entry 1: key 6") {
		t.Errorf("built index: %v, want it to name entry 1", err)
	}
}

// Indexed.Validate checks the opened index against its file.
func TestIndexedFileValidate(t *testing.T) {
	f, err := recordio.OpenIndexed(context.Background(), recPath("multipart_edge_cases"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Validate(); err != nil {
		t.Errorf("the test data's own index: %v", err)
	}
	idx := filepath.Join(t.TempDir(), "bad.idx")
	if err := os.WriteFile(idx, []byte("0\t0\n1\t20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := withIndex(t, recPath("multipart_edge_cases"), idx)
	idx = strings.TrimSuffix(rec, ".rec") + ".idx"
	bad, err := recordio.OpenIndexed(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	var fe *tensorfeed.Error
	if err := bad.Validate(); !errors.Is(err, recordio.ErrFormat) || !errors.As(err, &fe) || fe.Path != idx || fe.Offset != 4 || fe.Line != 2 ||
		!strings.Contains(err.Error(), "multipart_edge_cases.idx: line 2 at byte 4:") {
		t.Errorf("Validate = %v, want an error at line 2 of bad.idx", err)
	}
}
