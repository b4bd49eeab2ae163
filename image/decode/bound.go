package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// DefaultMaxBytes is the default bound on the memory one decode may
// take: 128 MiB. It admits a 24-megapixel baseline JPEG (a camera's photo,
// about 103 MiB with image/jpeg and 69 MiB with libjpeg-turbo) and a
// 16-megapixel 8-bit RGBA PNG, and refuses the decompression bombs whose
// headers claim gigapixel images in a few kilobytes. A progressive JPEG
// costs more, for its coefficients: 24 megapixels take about 137 MiB with
// libjpeg-turbo and 240 MiB with image/jpeg; raise the bound for such data.
// A caller that decodes on n goroutines holds at most n times the bound.
const DefaultMaxBytes = 128 << 20

// The JPEG and PNG facts the memory bound is computed from, read from the
// headers before anything is decoded.

// jpegInfo is what a JPEG's frame header (SOFn) says.
type jpegInfo struct {
	width, height int
	comps         int
	h, v          [4]int // sampling factors
	progressive   bool
	rgb           bool // decoded to RGBA by image/jpeg (Adobe transform 0, or components named R, G, B)
	adobe         int  // the Adobe APP14 transform, -1 without one
}

// jpegHeader walks the markers of a JPEG up to its frame header. It skips
// fill bytes and stray bytes between markers, as libjpeg and image/jpeg do.
func jpegHeader(data []byte) (jpegInfo, error) {
	info := jpegInfo{adobe: -1}
	if len(data) < 2 || data[0] != 0xff || data[1] != 0xd8 {
		return info, errors.New("missing SOI marker")
	}
	i := 2
	for {
		for i < len(data) && data[i] != 0xff {
			i++
		}
		for i < len(data) && data[i] == 0xff {
			i++
		}
		if i >= len(data) {
			return info, errors.New("no frame header (truncated data?)")
		}
		m := data[i]
		i++
		switch {
		case m == 0x00 || m == 0x01 || (m >= 0xd0 && m <= 0xd8):
			continue // stuffed byte, TEM, RSTn, SOI: no length
		case m == 0xd9 || m == 0xda:
			return info, fmt.Errorf("no frame header before marker 0xff%02x at byte %d", m, i-2)
		}
		if i+2 > len(data) {
			return info, errors.New("truncated marker segment")
		}
		n := int(binary.BigEndian.Uint16(data[i:]))
		if n < 2 || i+n > len(data) {
			return info, fmt.Errorf("marker 0xff%02x at byte %d: segment length %d runs past the data", m, i-2, n)
		}
		seg := data[i+2 : i+n]
		i += n
		switch {
		case m == 0xee && len(seg) >= 12 && bytes.HasPrefix(seg, []byte("Adobe")):
			info.adobe = int(seg[11])
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc:
			if len(seg) < 6 {
				return info, errors.New("short frame header")
			}
			info.height = int(binary.BigEndian.Uint16(seg[1:]))
			info.width = int(binary.BigEndian.Uint16(seg[3:]))
			info.comps = int(seg[5])
			if info.comps < 1 || info.comps > 4 || len(seg) < 6+3*info.comps {
				return info, fmt.Errorf("frame header with %d components", info.comps)
			}
			ids := make([]byte, info.comps)
			for c := range info.comps {
				ids[c] = seg[6+3*c]
				hv := seg[7+3*c]
				info.h[c], info.v[c] = max(int(hv>>4), 1), max(int(hv&15), 1)
			}
			if info.comps == 1 {
				// One component is not interleaved: its factors are moot.
				info.h[0], info.v[0] = 1, 1
			}
			info.progressive = m == 0xc2 || m == 0xc6 || m == 0xca || m == 0xce
			info.rgb = info.comps == 3 && (info.adobe == 0 || string(ids) == "RGB")
			return info, nil
		}
	}
}

// blocks returns the 8x8 blocks component c is stored in, counted as both
// decoders count them: whole MCUs, each holding h x v blocks of c.
func (j *jpegInfo) blocks(c int) int64 {
	hmax, vmax := 1, 1
	for k := range j.comps {
		hmax, vmax = max(hmax, j.h[k]), max(vmax, j.v[k])
	}
	mxx := int64((j.width + 8*hmax - 1) / (8 * hmax))
	myy := int64((j.height + 8*vmax - 1) / (8 * vmax))
	return mxx * myy * int64(j.h[c]*j.v[c])
}

// decodeOverhead covers a decoder's fixed state: tables, readers, buffers.
const decodeOverhead = 64 << 10

// goJPEGBytes is what image/jpeg allocates to decode the image, plus the
// ch-channel result: the sample planes (whole MCUs; image/jpeg gives both
// chroma planes the size of the first), the coefficients of every block for
// a progressive image (64 int32 per block), an RGBA or CMYK copy for RGB
// and 4-component images, and the result.
func goJPEGBytes(j *jpegInfo, ch int) int64 {
	px := int64(j.width) * int64(j.height)
	var planes, coeffs int64
	for c := range j.comps {
		b := j.blocks(c)
		if j.comps >= 3 && c == 2 {
			b = max(b, j.blocks(1))
		}
		planes += 64 * b
		coeffs += 64 * 4 * j.blocks(c)
	}
	need := planes + int64(ch)*px + decodeOverhead
	if j.progressive {
		need += coeffs
	}
	if j.comps == 4 || j.rgb {
		need += 4 * px
	}
	return need
}

// pngInfo is what a PNG's IHDR (and tRNS, before the image data) says.
type pngInfo struct {
	width, height int
	depth         int
	colorType     int
	interlaced    bool
	transparent   bool // a tRNS chunk
}

// pngHeader reads the IHDR chunk and looks for a tRNS chunk before IDAT.
func pngHeader(data []byte) (pngInfo, error) {
	var info pngInfo
	if !bytes.HasPrefix(data, pngMagic) {
		return info, errors.New("missing PNG signature")
	}
	i := len(pngMagic)
	for first := true; ; first = false {
		if i+8 > len(data) {
			if first {
				return info, errors.New("no IHDR chunk (truncated data?)")
			}
			return info, nil // the decoder reports the missing image data
		}
		n := int64(binary.BigEndian.Uint32(data[i:]))
		typ := string(data[i+4 : i+8])
		body := data[i+8:]
		if n > int64(len(body)) {
			if first {
				return info, errors.New("truncated IHDR chunk")
			}
			return info, nil // the decoder reports the truncation
		}
		body = body[:n]
		switch {
		case first && (typ != "IHDR" || len(body) < 13):
			return info, errors.New("first chunk is not a 13-byte IHDR")
		case first:
			info.width = int(binary.BigEndian.Uint32(body))
			info.height = int(binary.BigEndian.Uint32(body[4:]))
			info.depth = int(body[8])
			info.colorType = int(body[9])
			info.interlaced = body[12] == 1
			if info.width < 0 || info.height < 0 {
				info.width, info.height = 0, 0 // 2^31 and more: refused as empty
			}
		case typ == "tRNS":
			info.transparent = true
		case typ == "IDAT" || typ == "IEND":
			return info, nil
		}
		i += 12 + int(n)
	}
}

// goPNGBytes is what image/png allocates to decode the image, plus the
// ch-channel result: the image in the type image/png picks (1 byte a pixel
// for gray or paletted, 2 for 16-bit gray, 4 for 8-bit colour or any
// 8-bit image with transparency, 8 for 16-bit colour), two rows of raw
// samples, the pass images of an interlaced file, and the result.
func goPNGBytes(p *pngInfo, ch int) int64 {
	px := int64(p.width) * int64(p.height)
	samples := map[int]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[p.colorType]
	var bpp int64
	switch {
	case p.colorType == 3:
		bpp = 1
	case p.colorType == 0 && !p.transparent:
		bpp = 1
		if p.depth == 16 {
			bpp = 2
		}
	case p.depth == 16:
		bpp = 8
	default:
		bpp = 4
	}
	img := bpp * px
	row := 1 + (int64(p.width)*int64(samples)*int64(max(p.depth, 1))+7)/8
	need := img + 2*row + int64(ch)*px + decodeOverhead
	if p.interlaced {
		need += img + 7*2*row // a pass image and two rows for each of 7 passes
	}
	return need
}

// channels returns the channels of the image image/png gives for p: gray
// without transparency has 1; colour without alpha or transparency 3; the
// rest 4.
func (p *pngInfo) channels() int {
	switch {
	case p.transparent || p.colorType == 4 || p.colorType == 6:
		return 4
	case p.colorType == 0:
		return 1
	}
	return 3
}

// outChannels is the channel count of a decoded image: the one asked for,
// or the image's own.
func outChannels(ch, native int) int {
	if ch > 0 {
		return ch
	}
	return native
}

// maxBytes is the memory bound of opts.
func (opts *Options) maxBytes() int64 {
	if opts.MaxBytes > 0 {
		return opts.MaxBytes
	}
	return DefaultMaxBytes
}

// checkMemory refuses an image whose decode would need more than the bound.
func checkMemory(f Format, opts *Options, w, h int, kind string, need int64) error {
	if limit := opts.maxBytes(); need > limit {
		return fmt.Errorf("%w: %s: %dx%d %s image: decoding needs about %d MiB, more than the bound of %d MiB (MaxDecodeBytes)",
			ErrImage, f, w, h, kind, (need+1<<20-1)>>20, (limit+1<<20-1)>>20)
	}
	return nil
}

// jpegKind names what drives a JPEG's cost, for errors.
func (j *jpegInfo) kind() string {
	k := "baseline"
	if j.progressive {
		k = "progressive"
	}
	return fmt.Sprintf("%s %d-component", k, j.comps)
}

// pngKind names what drives a PNG's cost, for errors.
func (p *pngInfo) kind() string {
	k := fmt.Sprintf("%d-bit colour type %d", p.depth, p.colorType)
	if p.interlaced {
		k += " interlaced"
	}
	return k
}

// checkGo bounds the size and the memory of decoding data with image/jpeg
// or image/png, from the headers alone.
func checkGo(f Format, data []byte, opts *Options) error {
	var w, h int
	var kind string
	var need int64 // used only once checkSize accepted the size
	switch f {
	case FormatJPEG:
		j, err := jpegHeader(data)
		if err != nil {
			return imageErr(f, err)
		}
		native := 3
		if j.comps == 1 {
			native = 1
		}
		w, h, kind, need = j.width, j.height, j.kind(), goJPEGBytes(&j, outChannels(opts.Channels, native))
	case FormatPNG:
		p, err := pngHeader(data)
		if err != nil {
			return imageErr(f, err)
		}
		w, h, kind, need = p.width, p.height, p.kind(), goPNGBytes(&p, outChannels(opts.Channels, p.channels()))
	default:
		return nil
	}
	if err := checkSize(f, opts, w, h); err != nil {
		return err
	}
	return checkMemory(f, opts, w, h, kind, need)
}
