package plot_test

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/plot"
)

func TestLinesWritesPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "loss.png") // the folder is made
	err := plot.Lines(path, "training loss", "step", "loss",
		plot.Series{Name: "train", X: []float64{10, 20, 30}, Y: []float64{2.3, 0.9, 0.4}},
		plot.Series{Name: "one point", Y: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("image is %v", b)
	}
}

func TestLinesErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		series []plot.Series
		msg    string
	}{
		{"no series", nil, "no series"},
		{"empty", []plot.Series{{Name: "loss"}}, `"loss": no points`},
		{"lengths", []plot.Series{{Name: "acc", X: []float64{1}, Y: []float64{1, 2}}}, "1 x values and 2 y values"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".png")
			err := plot.Lines(path, "t", "x", "y", tt.series...)
			if err == nil || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), path) {
				t.Errorf("error = %v, want one naming %s and %q", err, path, tt.msg)
			}
		})
	}
}
