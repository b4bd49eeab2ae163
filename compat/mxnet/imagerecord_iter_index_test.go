package mxnet

import (
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

// An .idx that does not match its .rec (a truncated .rec beside an old
// .idx, two keys with one offset, an offset inside a record) ends the pass
// before the first batch with an error naming the .idx file and line: no
// record is dropped or read twice without a word.
func TestIterIndexMismatch(t *testing.T) {
	rec, err := os.ReadFile(tdPath(mnistJPG, ".rec"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(tdPath(mnistJPG, ".idx"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(idx), "\n"), "\n")
	ix, err := recordio.ReadIndex(context.Background(), tdPath(mnistJPG, ".idx"))
	if err != nil {
		t.Fatal(err)
	}
	off := func(i int) int64 { return ix.Entry(i).Offset }
	dup := append([]string(nil), lines...)
	dup[2] = fmt.Sprintf("%d\t%d\n", ix.Entry(2).Key, off(1))
	mid := append([]string(nil), lines...)
	mid[5] = fmt.Sprintf("%d\t%d\n", ix.Entry(5).Key, off(5)+8)
	cases := []struct {
		name string
		rec  []byte
		idx  string
		msg  string
	}{
		{"rec truncated to one record", rec[:off(1)], string(idx), "line 2: key 1 at offset"},
		{"empty rec", nil, string(idx), "line 1: key 0 at offset 0"},
		{"two keys, one offset", rec, strings.Join(dup, ""), "line 3: key 2 at offset"},
		{"offset inside a record", rec, strings.Join(mid, ""), "line 6: key 5 at offset"},
	}
	for _, c := range cases {
		for _, shuffle := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/shuffle=%v", c.name, shuffle), func(t *testing.T) {
				dir := t.TempDir()
				cfg := mnistConfig()
				cfg.Data.RecPath = filepath.Join(dir, "data.rec")
				cfg.Data.IdxPath = filepath.Join(dir, "data.idx")
				cfg.Data.Shuffle = shuffle
				if err := os.WriteFile(cfg.Data.RecPath, c.rec, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(cfg.Data.IdxPath, []byte(c.idx), 0o644); err != nil {
					t.Fatal(err)
				}
				it := newIter(t, cfg)
				batches := 0
				var err error
				for _, e := range it.All(t.Context()) {
					if e != nil {
						err = e
						break
					}
					batches++
				}
				if batches != 0 || !errors.Is(err, recordio.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) {
					t.Fatalf("%d batches, then %v; want no batch and an index error", batches, err)
				}
				// "line N: " at the start of msg is the error's Line.
				msg := c.msg
				var line int
				if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
					msg = msg[strings.Index(msg, ":")+2:]
					var pe *tensorfeed.Error
					if !errors.As(err, &pe) || pe.Line != line || pe.Path != cfg.Data.IdxPath {
						t.Errorf("error %v: not at line %d of %s", err, line, cfg.Data.IdxPath)
					}
				}
				if !strings.Contains(err.Error(), cfg.Data.IdxPath) || !strings.Contains(err.Error(), msg) {
					t.Errorf("error %q does not name %s and say %q", err, cfg.Data.IdxPath, c.msg)
				}
			})
		}
	}
}
