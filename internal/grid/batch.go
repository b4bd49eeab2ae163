package grid

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Layout says how an image row of a tensor is laid out.
type Layout uint8

// The layouts of an image tensor. Auto finds the channel axis from the
// shape: a first or last axis of 1, 3 or 4 (CHW when both could be, for
// float32 and int8 tensors, which the image record iterator yields, and HWC
// for uint8 ones).
const (
	Auto Layout = iota
	CHW         // planar: channel, row, column (what the image record iterator yields)
	HWC         // interleaved: row, column, channel (a decoded image)
)

type config struct {
	cols, scale, max int
	layout           Layout
	lo, hi           float32
	fixed            bool
	names            []string
}

// Option configures FromBatch.
type Option = option.Option[config]

// Cols sets the number of images per row (8 by default).
func Cols(n int) Option { return option.New(func(c *config) { c.cols = n }) }

// Scale draws each pixel as n×n pixels (by default, images smaller than 64
// pixels are drawn larger, up to about that size).
func Scale(n int) Option { return option.New(func(c *config) { c.scale = n }) }

// Max draws at most n images (all of the batch by default).
func Max(n int) Option { return option.New(func(c *config) { c.max = n }) }

// WithLayout sets the layout of the data tensor's rows instead of finding
// it from the shape.
func WithLayout(l Layout) Option { return option.New(func(c *config) { c.layout = l }) }

// Range draws lo as black and hi as white (clamping the values outside),
// instead of the smallest and largest float value of the batch; uint8 data
// is drawn from 0 to 255 unless Range is set.
func Range(lo, hi float32) Option {
	return option.New(func(c *config) { c.lo, c.hi, c.fixed = lo, hi, true })
}

// ClassNames writes names[label] under each image whose label is a whole
// number in range, instead of the number.
func ClassNames(names ...string) Option { return option.New(func(c *config) { c.names = names }) }

// FromBatch draws the images of the tensor named data of b on a grid, with
// the labels of the tensor named label under them (none when label is
// ""); the padding rows of the batch are left out. A label of several
// values is written comma-separated. It returns an error when a tensor is
// missing or its shape is not that of images.
func FromBatch(b *tensor.Batch, data, label string, opts ...Option) (image.Image, error) {
	var c config
	option.Apply(&c, opts)
	g, err := gridFor(b, data, label, c)
	if err != nil {
		return nil, err
	}
	return g.Image(), nil
}

// gridFor fills a Grid with the images and labels of b.
func gridFor(b *tensor.Batch, data, label string, c config) (*Grid, error) {
	x, ok := b.Get(data)
	if !ok {
		return nil, fmt.Errorf("grid: the batch has no tensor %q", data)
	}
	var y tensor.Tensor
	if label != "" {
		if y, ok = b.Get(label); !ok {
			return nil, fmt.Errorf("grid: the batch has no tensor %q", label)
		}
	}
	if x.DType != sample.Float32 && x.DType != sample.Uint8 && x.DType != sample.Int8 {
		return nil, fmt.Errorf("grid: tensor %q is %v; want float32, uint8 or int8 images", data, x.DType)
	}
	h, w, ch, chw, err := imageShape(x, c.layout)
	if err != nil {
		return nil, err
	}
	n := max(x.Shape[0]-b.Padded, 0)
	if c.max > 0 {
		n = min(n, c.max)
	}
	per := h * w * ch
	lo, hi := c.lo, c.hi
	if !c.fixed {
		switch x.DType {
		case sample.Float32:
			lo, hi = span(x.F32[:n*per])
		case sample.Int8:
			lo, hi = -128, 127
		default:
			lo, hi = 0, 255
		}
	}
	keep := min(ch, 3) // the alpha plane is not drawn
	scale := c.scale
	if scale <= 0 {
		scale = max(1, 64/max(h, w))
	}
	g := &Grid{H: h, W: w, Channels: keep, Cols: c.cols, Scale: scale}
	for i := range n {
		t := make([]uint8, h*w*keep)
		switch x.DType {
		case sample.Float32:
			quantize(t, x.F32[i*per:(i+1)*per], chw, h, w, ch, keep, lo, hi)
		case sample.Int8:
			quantize(t, x.I8[i*per:(i+1)*per], chw, h, w, ch, keep, lo, hi)
		default:
			quantize(t, x.U8[i*per:(i+1)*per], chw, h, w, ch, keep, lo, hi)
		}
		g.tiles = append(g.tiles, tile{pix: t})
		if label != "" && y.Shape[0] > 0 {
			g.SetLabel(labelText(y, i, c.names))
		}
	}
	return g, nil
}

// imageShape finds the height, width, channels and layout of the rows of
// x.
func imageShape(x tensor.Tensor, l Layout) (h, w, c int, chw bool, err error) {
	s := x.Shape
	isCh := func(n int) bool { return n == 1 || n == 3 || n == 4 }
	switch len(s) {
	case 2: // flat rows: a square gray image
		r := int(math.Sqrt(float64(s[1])))
		if r*r != s[1] || r == 0 {
			return 0, 0, 0, false, fmt.Errorf("grid: tensor %q has rows of %d values, not a square image; reshape it to [N C H W] or [N H W C]", x.Name, s[1])
		}
		return r, r, 1, true, nil
	case 3:
		return s[1], s[2], 1, true, nil
	case 4:
		if l == Auto {
			switch {
			case isCh(s[1]) && (!isCh(s[3]) || x.DType != sample.Uint8): // float and int8 image tensors are CHW
				l = CHW
			case isCh(s[3]):
				l = HWC
			default:
				return 0, 0, 0, false, fmt.Errorf("grid: tensor %q of shape %v has no channel axis of 1, 3 or 4", x.Name, s)
			}
		}
		if l == CHW {
			c, h, w = s[1], s[2], s[3]
		} else {
			h, w, c = s[1], s[2], s[3]
		}
		if c < 1 || c == 2 || c > 4 {
			return 0, 0, 0, false, fmt.Errorf("grid: tensor %q of shape %v: %d channels, want 1, 3 or 4", x.Name, s, c)
		}
		return h, w, c, l == CHW, nil
	}
	return 0, 0, 0, false, fmt.Errorf("grid: tensor %q of shape %v is not a batch of images", x.Name, s)
}

// span returns the smallest and largest finite value of v.
func span(v []float32) (lo, hi float32) {
	lo, hi = float32(math.Inf(1)), float32(math.Inf(-1))
	for _, f := range v {
		if f < lo {
			lo = f
		}
		if f > hi {
			hi = f
		}
	}
	if lo > hi {
		return 0, 1
	}
	return lo, hi
}

// labelText writes row i of the label tensor y, leaving out NaN values
// (missing labels).
func labelText(y tensor.Tensor, i int, names []string) string {
	per := sample.Elems(y.Shape) / y.Shape[0]
	var b strings.Builder
	for j := range per {
		var v float64
		switch y.DType {
		case sample.Float32:
			v = float64(y.F32[i*per+j])
		case sample.Int32:
			v = float64(y.I32[i*per+j])
		case sample.Int64:
			v = float64(y.I64[i*per+j])
		case sample.Uint8:
			v = float64(y.U8[i*per+j])
		case sample.Int8:
			v = float64(y.I8[i*per+j])
		default:
			return "?"
		}
		if math.IsNaN(v) { // a missing label
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if k := int(v); float64(k) == v && k >= 0 && k < len(names) {
			b.WriteString(names[k])
		} else {
			b.WriteString(strconv.FormatFloat(v, 'g', 4, 64))
		}
	}
	return b.String()
}
