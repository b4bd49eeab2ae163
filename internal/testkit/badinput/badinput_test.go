package badinput_test

import (
	"bytes"
	"compress/gzip"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
)

// Write is deterministic, names every case once, and writes the files it
// lists; every format has good and bad cases.
func TestWrite(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	var runs [2][]badinput.Case
	for i, d := range dirs {
		cs, err := badinput.Write(d, false)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = cs
	}
	if len(runs[0]) != len(runs[1]) {
		t.Fatalf("%d cases, then %d", len(runs[0]), len(runs[1]))
	}
	names := map[string]bool{}
	kinds := map[badinput.Format][2]int{}
	for i, c := range runs[0] {
		if names[c.Name] || c.Name == "" {
			t.Errorf("case name %q repeated or empty", c.Name)
		}
		names[c.Name] = true
		if c.Large {
			t.Errorf("%s: large case written with large false", c.Name)
		}
		if !c.Good && c.Why == "" {
			t.Errorf("%s: bad case without a reason", c.Name)
		}
		k := kinds[c.Format]
		if c.Good {
			k[0]++
		} else {
			k[1]++
		}
		kinds[c.Format] = k
		for _, p := range [][2]string{{c.Path, runs[1][i].Path}, {c.Index, runs[1][i].Index}} {
			if p[0] == "" {
				continue
			}
			a, errA := os.ReadFile(p[0])
			b, errB := os.ReadFile(p[1])
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs between runs (%v, %v)", c.Name, filepath.Base(p[0]), errA, errB)
			}
		}
	}
	for _, f := range []badinput.Format{badinput.IDX, badinput.CSV, badinput.ImageRecord, badinput.List, badinput.TFRecord, badinput.WebDataset, badinput.Lines, badinput.MeanImage, badinput.Parquet} {
		if k := kinds[f]; k[0] == 0 || k[1] == 0 {
			t.Errorf("format %s: %d good and %d bad cases", f, k[0], k[1])
		}
	}
}

// The large cases are what they claim: the gzip bomb is a valid gzip
// stream of at least 1 GiB from about 1 MB, the PNG a valid 16-bit PNG of
// 20000 x 20000, the CSV line 50 MB.
func TestLargeCases(t *testing.T) {
	cases, err := badinput.Write(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]badinput.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	bomb := byName["idx_gzip_bomb"]
	f, err := os.Open(bomb.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil || n < 1<<30 || st.Size() > 4<<20 {
		t.Errorf("gzip bomb: %d bytes expand to %d, %v; want at most 4 MiB to at least 1 GiB", st.Size(), n, err)
	}

	rec, err := os.Open(byName["img_png16_20000"].Path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	rd := recordio.NewReader(rec, rec.Name())
	rd.Next()
	payload, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	_, img, err := imagerec.ParseRecord(payload)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil || cfg.Width != 20000 || cfg.Height != 20000 || len(img) > 1<<20 {
		t.Errorf("PNG bomb: %d bytes, %+v, %v", len(img), cfg, err)
	}

	if st, err := os.Stat(byName["csv_one_line_50MB"].Path); err != nil || st.Size() != 50<<20 {
		t.Errorf("one-line CSV: %v", err)
	}
}
