package mxnet

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const testdata = "../../dataset/imagerec/testdata"

func tdPath(name, ext string) string { return filepath.Join(testdata, name+ext) }

// tsvRow is one line of a .records.tsv expectation file.
type tsvRow struct {
	key, offset int64
	flag        uint32
	headerLabel float32
	labels      []float32
	id, id2     uint64
	imageLen    int
	format      string
}

func readTSV(tb testing.TB, name string) []tsvRow {
	tb.Helper()
	f, err := os.Open(tdPath(name, ".records.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rows []tsvRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		num := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				tb.Fatalf("%s: %q: %v", name, line, err)
			}
			return v
		}
		fl := func(s string) float32 {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				tb.Fatalf("%s: %q: %v", name, line, err)
			}
			return float32(v)
		}
		r := tsvRow{key: num(c[0]), offset: num(c[1]), flag: uint32(num(c[5])), headerLabel: fl(c[6]),
			id: uint64(num(c[8])), id2: uint64(num(c[9])), imageLen: int(num(c[10])), format: c[11]}
		if c[7] != "" {
			for _, s := range strings.Split(c[7], ",") {
				r.labels = append(r.labels, fl(s))
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}
