package grid_test

import (
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/grid"
)

func TestGridLayoutAndValues(t *testing.T) {
	g := &grid.Grid{H: 2, W: 3, Channels: 1, Cols: 2, Scale: 2}
	// Tile 0: all black; tile 1: a ramp; tile 2: clamped white.
	g.AddFloat(make([]float32, 6), 0, 1)
	g.AddFloat64([]float64{-1, 0, 1, -1, 0, 1}, -1, 1)
	g.AddFloat([]float32{5, 5, 5, 5, 5, 5}, 0, 1)
	path := filepath.Join(t.TempDir(), "sub", "g.png")
	if err := g.WritePNG(path); err != nil {
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
	// 2 columns of (3*2+1) px plus a border; 2 rows of (2*2+1) px plus a border.
	if b := img.Bounds(); b.Dx() != 15 || b.Dy() != 11 {
		t.Fatalf("size %v, want 15x11", b)
	}
	gray := func(x, y int) uint8 { return color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y }
	if v := gray(1, 1); v != 0 {
		t.Errorf("tile 0 pixel = %d, want 0", v)
	}
	// Tile 1 starts at x = 8; its columns are -1, 0, 1 → 0, 128, 255, each 2 px wide.
	for i, want := range []uint8{0, 0, 128, 128, 255, 255} {
		if v := gray(8+i, 1); v != want {
			t.Errorf("tile 1 x=%d: %d, want %d", i, v, want)
		}
	}
	if v := gray(1, 6); v != 255 {
		t.Errorf("tile 2 (second row) = %d, want 255 (clamped)", v)
	}
	if g.Len() != 3 {
		t.Errorf("Len = %d", g.Len())
	}
}

func TestGridRGBFromCHW(t *testing.T) {
	g := &grid.Grid{H: 1, W: 1, Channels: 3, Cols: 1}
	g.AddFloat([]float32{1, 0, 0.5}, 0, 1)
	r, gg, b, _ := g.Image().At(1, 1).RGBA()
	if r>>8 != 255 || gg>>8 != 0 || b>>8 != 128 {
		t.Errorf("pixel = %d %d %d", r>>8, gg>>8, b>>8)
	}
}

func TestAddFloatPanicsOnWrongSize(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	(&grid.Grid{H: 2, W: 2, Channels: 1}).AddFloat(make([]float32, 3), 0, 1)
}

// tempDir is a folder for the examples' files.
func tempDir() string {
	d, err := os.MkdirTemp("", "grid")
	if err != nil {
		panic(err)
	}
	return d
}
