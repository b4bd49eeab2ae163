package decode

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"github.com/tensorfeed/tensorfeed/internal/channels"
	"github.com/tensorfeed/tensorfeed/sample"
)

// Go returns the pure-Go decoder (image/jpeg and image/png), which
// every build holds. Its Name is "go".
//
// A JPEG decodes to YCbCr planes; only the pixels of the crop are converted
// to RGB, straight from the planes.
func Go() Decoder { return goDecoder{} }

type goDecoder struct{}

func (goDecoder) Name() string { return "go" }

func (goDecoder) Decode(data []byte, opts Options) (sample.Image, error) {
	checkChannels(opts.Channels)
	return decodeGo(data, opts)
}

// decodeGo decodes data with image/jpeg or image/png.
func decodeGo(data []byte, opts Options) (sample.Image, error) {
	f := Sniff(data)
	// Bound the size and the memory from the header before image/jpeg or
	// image/png allocate anything.
	if err := checkGo(f, data, &opts); err != nil {
		return sample.Image{}, err
	}
	var m image.Image
	var err error
	switch f {
	case FormatJPEG:
		m, err = jpeg.Decode(bytes.NewReader(data))
	case FormatPNG:
		m, err = png.Decode(bytes.NewReader(data))
	default:
		return sample.Image{}, imageErr(f, errUnknownFormat(data))
	}
	if err != nil {
		return sample.Image{}, imageErr(f, err)
	}
	b := m.Bounds()
	r, err := cropRect(&opts, b.Dx(), b.Dy())
	if err != nil {
		return sample.Image{}, err
	}
	return fromGoImage(m, r.Add(b.Min), opts.Channels), nil
}

type errUnknown struct{ head []byte }

func (e errUnknown) Error() string {
	return "not a JPEG or PNG image (starts with " + hexBytes(e.head) + ")"
}

func errUnknownFormat(data []byte) error {
	return errUnknown{head: data[:min(len(data), 4)]}
}

func hexBytes(b []byte) string {
	const digits = "0123456789abcdef"
	if len(b) == 0 {
		return "nothing"
	}
	s := make([]byte, 0, 3*len(b))
	for i, c := range b {
		if i > 0 {
			s = append(s, ' ')
		}
		s = append(s, digits[c>>4], digits[c&15])
	}
	return string(s)
}

// nativeChannels returns the channels an image has in its file.
func nativeChannels(m image.Image) int {
	switch m := m.(type) {
	case *image.Gray, *image.Gray16:
		return 1
	case *image.NRGBA, *image.NRGBA64:
		return 4
	case *image.Paletted:
		for _, c := range m.Palette {
			if _, _, _, a := c.RGBA(); a != 0xffff {
				return 4
			}
		}
	}
	return 3
}

// fromGoImage converts rectangle r of m (in m's coordinates) to an HWC image
// with ch channels (0: the image's own).
func fromGoImage(m image.Image, r image.Rectangle, ch int) sample.Image {
	if ch == 0 {
		ch = nativeChannels(m)
	}
	out := sample.NewImage(r.Dy(), r.Dx(), ch)
	switch m := m.(type) {
	case *image.YCbCr:
		ycbcrTo(out.Pix, m, r, ch)
	case *image.Gray:
		channels.FromGray(out.Pix, m.Pix[m.PixOffset(r.Min.X, r.Min.Y):], m.Stride, r.Dx(), r.Dy(), ch)
	case *image.RGBA:
		channels.FromRGBA(out.Pix, m.Pix[m.PixOffset(r.Min.X, r.Min.Y):], m.Stride, r.Dx(), r.Dy(), ch)
	case *image.NRGBA:
		channels.FromRGBA(out.Pix, m.Pix[m.PixOffset(r.Min.X, r.Min.Y):], m.Stride, r.Dx(), r.Dy(), ch)
	default:
		anyTo(out.Pix, m, r, ch)
	}
	return out
}

// ycc converts one JFIF YCbCr pixel to RGB in 16.16 fixed point, the same
// arithmetic as image/color's YCbCrToRGB.
func ycc(y, cb, cr uint8) (uint8, uint8, uint8) {
	yy := int32(y) * 0x10101
	cb1 := int32(cb) - 128
	cr1 := int32(cr) - 128
	return clamp16(yy + 91881*cr1), clamp16(yy - 22554*cb1 - 46802*cr1), clamp16(yy + 116130*cb1)
}

func clamp16(v int32) uint8 {
	if uint32(v)&0xff000000 == 0 {
		return uint8(v >> 16)
	}
	return uint8(^(v >> 31))
}

// subsampleShifts returns the horizontal and vertical shifts from luma to
// chroma coordinates.
func subsampleShifts(s image.YCbCrSubsampleRatio) (hs, vs uint) {
	switch s {
	case image.YCbCrSubsampleRatio422:
		return 1, 0
	case image.YCbCrSubsampleRatio420:
		return 1, 1
	case image.YCbCrSubsampleRatio440:
		return 0, 1
	case image.YCbCrSubsampleRatio411:
		return 2, 0
	case image.YCbCrSubsampleRatio410:
		return 2, 1
	}
	return 0, 0
}

// ycbcrTo converts rectangle r of m straight from its planes.
func ycbcrTo(dst []uint8, m *image.YCbCr, r image.Rectangle, ch int) {
	w := r.Dx()
	if ch == 1 {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			i := m.YOffset(r.Min.X, y)
			copy(dst[(y-r.Min.Y)*w:(y-r.Min.Y+1)*w], m.Y[i:i+w])
		}
		return
	}
	hs, vs := subsampleShifts(m.SubsampleRatio)
	minX, minY := m.Rect.Min.X, m.Rect.Min.Y
	o := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		yrow := m.Y[(y-minY)*m.YStride+(r.Min.X-minX):]
		yrow = yrow[:w]
		c0 := (y>>vs - minY>>vs) * m.CStride
		cbRow := m.Cb[c0:]
		crRow := m.Cr[c0:]
		row := dst[o : o+w*ch]
		for i, yy := range yrow {
			cx := (r.Min.X+i)>>hs - minX>>hs
			R, G, B := ycc(yy, cbRow[cx], crRow[cx])
			p := row[i*ch : i*ch+3 : i*ch+3]
			p[0], p[1], p[2] = R, G, B
			if ch == 4 {
				row[i*ch+3] = 255
			}
		}
		o += w * ch
	}
}

// anyTo converts any other image type through its colour model (16-bit,
// paletted and CMYK images: rare, and slower). Pixels are read through
// RGBA64At, which every standard image type has, so that no pixel is boxed
// in an interface: the decode allocates the result and nothing per pixel.
func anyTo(dst []uint8, m image.Image, r image.Rectangle, ch int) {
	gray := nativeChannels(m) == 1
	m64, fast := m.(image.RGBA64Image)
	o := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			var R, G, B, A uint32
			if fast {
				c := m64.RGBA64At(x, y)
				R, G, B, A = uint32(c.R), uint32(c.G), uint32(c.B), uint32(c.A)
			} else {
				R, G, B, A = m.At(x, y).RGBA()
			}
			c := nrgba(R, G, B, A)
			switch ch {
			case 1:
				if gray {
					dst[o] = c.R
				} else {
					dst[o] = channels.Gray(c.R, c.G, c.B)
				}
			case 3:
				dst[o], dst[o+1], dst[o+2] = c.R, c.G, c.B
			case 4:
				dst[o], dst[o+1], dst[o+2], dst[o+3] = c.R, c.G, c.B, c.A
			}
			o += ch
		}
	}
}

// nrgba is color.NRGBAModel's conversion of alpha-premultiplied 16-bit
// values, without the interface.
func nrgba(r, g, b, a uint32) color.NRGBA {
	switch a {
	case 0xffff:
		return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
	case 0:
		return color.NRGBA{}
	}
	r = (r * 0xffff) / a
	g = (g * 0xffff) / a
	b = (b * 0xffff) / a
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}
