package recimages

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Row is one line of a .records.tsv file, the expectations written beside
// a .rec of dataset/imagerec/testdata: a record's key and offset, its
// header (flag, label, labels, ids) and its image's length and format.
type Row struct {
	Key, Offset int64
	Flag        uint32
	HeaderLabel float32
	Labels      []float32
	ID, ID2     uint64
	ImageLen    int
	Format      string
}

// ReadTSV reads the rows of the .records.tsv file at path, failing tb on
// a line that does not parse.
func ReadTSV(tb testing.TB, path string) []Row {
	tb.Helper()
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rows []Row
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
		r := Row{Key: num(c[0]), Offset: num(c[1]), Flag: uint32(num(c[5])), HeaderLabel: fl(c[6]),
			ID: uint64(num(c[8])), ID2: uint64(num(c[9])), ImageLen: int(num(c[10])), Format: c[11]}
		if c[7] != "" {
			for _, s := range strings.Split(c[7], ",") {
				r.Labels = append(r.Labels, fl(s))
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}
