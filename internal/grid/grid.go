// Package grid lays images out on a grid, each with its label written under
// it, and writes the grid as a PNG, so that a person can look at what a
// pipeline produced: the digits of an MNIST file, the crops and colours an
// augmentation made, the samples a model generated.
//
// # From a batch
//
// FromBatch draws the images of a tensor.Batch, the batch a training loop
// receives, with their labels:
//
//	img, err := grid.FromBatch(b, "data", "softmax_label")
//	if err != nil { ... }
//	err = grid.WritePNG("batch.png", img)
//
// The data tensor may be float32, uint8 or int8, in CHW layout (what the image
// record iterator and augment.Normalize produce), HWC (decoded images), HW
// (gray), or flat rows of a square gray image (MNIST's 784). Float values
// are drawn from their smallest to their largest value in the batch, so
// normalised data is visible as it is; int8 values (the image record
// iterator's pixel minus mean) span -128 to 127. Range fixes the interval
// instead.
//
// # Tile by tile
//
// A Grid collects tiles one at a time, from CHW float values (AddFloat) or
// HWC bytes (AddHWC), each labelled with SetLabel.
package grid

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Grid collects equally sized tiles, in row-major order, Cols per row,
// separated by a one-pixel border. When any tile has a label, every row of
// tiles gets a strip beneath it where the labels are written.
type Grid struct {
	H, W, Channels int // size of a tile; Channels is 1 (gray) or 3 (RGB)
	Cols           int // tiles per row (8 when 0)
	Scale          int // each pixel becomes Scale×Scale pixels (1 when 0)

	tiles []tile
}

// tile is one image, HWC with the grid's channels, and its label.
type tile struct {
	pix   []uint8
	label string
}

// AddFloat adds a tile from H×W×Channels values in CHW layout (planar, as
// the tensors fed to a model), mapping lo to black and hi to white and
// clamping the rest. It panics when chw does not hold one tile.
func (g *Grid) AddFloat(chw []float32, lo, hi float32) {
	n := g.H * g.W
	if len(chw) != n*g.Channels {
		panic(fmt.Sprintf("grid: tile of %d values, want %d", len(chw), n*g.Channels))
	}
	t := make([]uint8, n*g.Channels)
	quantize(t, chw, true, g.H, g.W, g.Channels, g.Channels, lo, hi)
	g.tiles = append(g.tiles, tile{pix: t})
}

// AddFloat64 is AddFloat for float64 values.
func (g *Grid) AddFloat64(chw []float64, lo, hi float64) {
	f := make([]float32, len(chw))
	for i, v := range chw {
		f[i] = float32(v)
	}
	g.AddFloat(f, float32(lo), float32(hi))
}

// AddHWC adds a tile from H×W×Channels bytes in HWC layout (interleaved,
// as sample.Image holds a decoded image). It panics when hwc does not hold
// one tile.
func (g *Grid) AddHWC(hwc []uint8) {
	if len(hwc) != g.H*g.W*g.Channels {
		panic(fmt.Sprintf("grid: tile of %d bytes, want %d", len(hwc), g.H*g.W*g.Channels))
	}
	g.tiles = append(g.tiles, tile{pix: append([]uint8(nil), hwc...)})
}

// SetLabel sets the label written under the last tile added; a label wider
// than the tile is cut short and ends with "~". It panics when no tile has
// been added.
func (g *Grid) SetLabel(label string) {
	if len(g.tiles) == 0 {
		panic("grid: SetLabel before the first tile")
	}
	g.tiles[len(g.tiles)-1].label = label
}

// Len returns the number of tiles added.
func (g *Grid) Len() int { return len(g.tiles) }

// face is the font of the labels: 7×13 pixels a character, ASCII.
var face = basicfont.Face7x13

const (
	charW   = 7
	labelH  = 13 + 2 // a line of text and a pixel above and below
	padding = 1      // the border between tiles
)

var (
	borderColor = color.RGBA{R: 60, G: 60, B: 90, A: 255}
	labelColor  = color.RGBA{R: 255, G: 230, B: 120, A: 255}
)

// Image renders the grid: the tiles on a dark blue-gray background, each
// label in light yellow, centred under its tile.
func (g *Grid) Image() image.Image {
	s := max(g.Scale, 1)
	cols := g.Cols
	if cols <= 0 {
		cols = 8
	}
	cols = max(min(cols, len(g.tiles)), 1)
	rows := max((len(g.tiles)+cols-1)/cols, 1)
	strip := 0
	for _, t := range g.tiles {
		if t.label != "" {
			strip = labelH
			break
		}
	}
	tw, th := g.W*s+padding, g.H*s+strip+padding
	rect := image.Rect(0, 0, cols*tw+padding, rows*th+padding)
	img := image.NewRGBA(rect)
	draw.Draw(img, rect, image.NewUniform(borderColor), image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.NewUniform(labelColor), Face: face}
	for k, t := range g.tiles {
		ox, oy := padding+(k%cols)*tw, padding+(k/cols)*th
		for y := 0; y < g.H*s; y++ {
			row := img.Pix[img.PixOffset(ox, oy+y):]
			for x := 0; x < g.W*s; x++ {
				p := ((y/s)*g.W + x/s) * g.Channels
				r, gg, b := t.pix[p], t.pix[p], t.pix[p]
				if g.Channels >= 3 {
					gg, b = t.pix[p+1], t.pix[p+2]
				}
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = r, gg, b, 255
			}
		}
		if t.label == "" {
			continue
		}
		text := fit(t.label, g.W*s/charW)
		d.Dot = fixed.P(ox+(g.W*s-len(text)*charW)/2, oy+g.H*s+1+face.Ascent)
		d.DrawString(text)
	}
	return img
}

// fit cuts s to at most n characters, marking a cut with "~".
func fit(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 1 {
		return "~"[:max(n, 0)]
	}
	return s[:n-1] + "~"
}

// WritePNG renders the grid into the PNG file path, creating its folder.
func (g *Grid) WritePNG(path string) error { return WritePNG(path, g.Image()) }

// WritePNG writes img to the PNG file path, creating its folder.
func WritePNG(path string, img image.Image) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("grid: %s: %w", path, err)
	}
	return f.Close()
}

// quantize writes the h×w pixels of src (CHW when chw, else HWC, with c
// channels) to dst as HWC bytes with the first keep channels, mapping lo to
// 0 and hi to 255 and clamping the rest.
func quantize[E float32 | uint8 | int8](dst []uint8, src []E, chw bool, h, w, c, keep int, lo, hi float32) {
	n := h * w
	scale := float32(1)
	if hi > lo {
		scale = 1 / (hi - lo)
	}
	for ch := range keep {
		for i := range n {
			var v E
			if chw {
				v = src[ch*n+i]
			} else {
				v = src[i*c+ch]
			}
			f := (float32(v) - lo) * scale
			dst[i*keep+ch] = uint8(min(max(f, 0), 1)*255 + 0.5)
		}
	}
}
