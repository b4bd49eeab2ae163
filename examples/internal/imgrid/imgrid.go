// Package imgrid lays small images out on a grid and writes it as a PNG, so
// that a person can look at what a pipeline produced or a model generated.
package imgrid

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
)

// Grid collects equally sized tiles, in row-major order, cols per row,
// separated by a one-pixel border.
type Grid struct {
	H, W, Channels int // size of a tile; Channels is 1 (gray) or 3 (RGB)
	Cols           int
	Scale          int // each pixel becomes Scale×Scale pixels (1 when 0)

	tiles [][]uint8 // HWC
}

// AddFloat adds a tile from h×w×c values in CHW layout (planar, as the
// tensors fed to a model), mapping lo to black and hi to white and clamping
// the rest.
func (g *Grid) AddFloat(chw []float32, lo, hi float32) {
	n := g.H * g.W
	if len(chw) != n*g.Channels {
		panic(fmt.Sprintf("imgrid: tile of %d values, want %d", len(chw), n*g.Channels))
	}
	t := make([]uint8, n*g.Channels)
	for c := 0; c < g.Channels; c++ {
		for i := 0; i < n; i++ {
			v := (chw[c*n+i] - lo) / (hi - lo)
			t[i*g.Channels+c] = uint8(min(max(v, 0), 1)*255 + 0.5)
		}
	}
	g.tiles = append(g.tiles, t)
}

// AddFloat64 is AddFloat for float64 values.
func (g *Grid) AddFloat64(chw []float64, lo, hi float64) {
	f := make([]float32, len(chw))
	for i, v := range chw {
		f[i] = float32(v)
	}
	g.AddFloat(f, float32(lo), float32(hi))
}

// Len returns the number of tiles added.
func (g *Grid) Len() int { return len(g.tiles) }

// Image renders the grid.
func (g *Grid) Image() image.Image {
	s := max(g.Scale, 1)
	cols := max(min(g.Cols, len(g.tiles)), 1)
	rows := max((len(g.tiles)+cols-1)/cols, 1)
	tw, th := g.W*s+1, g.H*s+1
	rect := image.Rect(0, 0, cols*tw+1, rows*th+1)
	border := color.RGBA{R: 60, G: 60, B: 90, A: 255}
	img := image.NewRGBA(rect)
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			img.SetRGBA(x, y, border)
		}
	}
	for k, t := range g.tiles {
		ox, oy := 1+(k%cols)*tw, 1+(k/cols)*th
		for y := 0; y < g.H*s; y++ {
			for x := 0; x < g.W*s; x++ {
				p := ((y/s)*g.W + x/s) * g.Channels
				var c color.RGBA
				if g.Channels == 1 {
					c = color.RGBA{t[p], t[p], t[p], 255}
				} else {
					c = color.RGBA{t[p], t[p+1], t[p+2], 255}
				}
				img.SetRGBA(ox+x, oy+y, c)
			}
		}
	}
	return img
}

// WritePNG renders the grid into the PNG file path, creating its directory.
func (g *Grid) WritePNG(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, g.Image()); err != nil {
		f.Close()
		return fmt.Errorf("imgrid: %s: %w", path, err)
	}
	return f.Close()
}
