package main

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"io/fs"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

func TestRunSmall(t *testing.T) {
	cfg := defaultConfig()
	cfg.OutDir = t.TempDir()
	cfg.Epochs = 2
	cfg.BatchSize = 96 // 1000 = 10 full batches + a padded one
	cfg.Threads = 2
	cfg.SheetSize = 20
	cfg.Log = zaptest.NewLogger(t)
	var out, bars bytes.Buffer
	cfg.Progress = &bars
	res, err := run(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if res.Images != 1000 || len(res.EpochRates) != 2 || res.Rate <= 0 {
		t.Errorf("images %d, epochs %d, rate %v", res.Images, len(res.EpochRates), res.Rate)
	}
	// The sheet's labels are digits, and the shuffle mixes them.
	if len(res.Labels) != 20 {
		t.Fatalf("%d labels", len(res.Labels))
	}
	seen := map[float32]bool{}
	for _, l := range res.Labels {
		if l != float32(int(l)) || l < 0 || l > 9 {
			t.Errorf("label %v is not a digit", l)
		}
		seen[l] = true
	}
	if len(seen) < 4 {
		t.Errorf("only %d distinct labels among 20 shuffled images", len(seen))
	}
	for _, want := range []string{"epoch 1/2: 1000 images", "epoch 2/2: 1000 images", "images/s", "labels row by row"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	f, err := os.Open(res.Sheet)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 20 tiles of 28x28 drawn at 4x: 8 columns, 3 rows, one-pixel borders.
	if b := img.Bounds(); b.Dx() != 8*(4*28+1)+1 || b.Dy() != 3*(4*28+1)+1 {
		t.Errorf("sheet is %v", b)
	}
	bright := 0
	for y := 1; y < 4*28; y++ {
		for x := 1; x < 4*28; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r>>8 > 200 {
				bright++
			}
		}
	}
	if bright < 100 {
		t.Errorf("the first crop has %d bright pixels: no digit?", bright)
	}
	if st := res.Stats.Last(); st.Passes != 2 || st.Samples != 22 || st.Errors != 0 {
		t.Errorf("pipeline stats %+v, want 2 passes of 11 batches", st)
	}
}

func TestRunMissingRec(t *testing.T) {
	cfg := defaultConfig()
	cfg.RecPath = "no/such.rec"
	_, err := run(context.Background(), cfg, &bytes.Buffer{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "-rec") {
		t.Errorf("err = %v", err)
	}
}

func TestParseShape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [3]int
		ok   bool
	}{
		{"3,28,28", [3]int{3, 28, 28}, true},
		{" 1, 32 ,32", [3]int{1, 32, 32}, true},
		{"3,28", [3]int{}, false},
		{"3,x,28", [3]int{}, false},
	} {
		got, err := parseShape(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseShape(%q) = %v, %v", tc.in, got, err)
		}
	}
}
