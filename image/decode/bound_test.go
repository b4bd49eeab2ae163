package decode_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
)

// pngChunk appends a PNG chunk with its CRC.
func pngChunk(b []byte, typ string, body []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// zeroPNG encodes a valid w x h PNG of zero samples: colour type ct, depth
// bits per sample, Adam7-interlaced or not. Zeros compress about a
// thousand to one, which is what makes a small PNG a bomb.
func zeroPNG(tb testing.TB, w, h, depth, ct int, interlaced bool) []byte {
	tb.Helper()
	samples := map[int]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
	b := []byte("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	il := byte(0)
	if interlaced {
		il = 1
	}
	b = pngChunk(b, "IHDR", append(ihdr, byte(depth), byte(ct), 0, 0, il))
	if ct == 3 {
		b = pngChunk(b, "PLTE", []byte{0, 0, 0, 255, 255, 255})
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	rows := func(pw, ph int) {
		if pw == 0 || ph == 0 {
			return
		}
		row := make([]byte, 1+(pw*samples*depth+7)/8)
		for range ph {
			if _, err := zw.Write(row); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if !interlaced {
		rows(w, h)
	} else {
		for _, p := range [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}} {
			rows((w-p[0]+p[2]-1)/p[2], (h-p[1]+p[3]-1)/p[3])
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	b = pngChunk(b, "IDAT", z.Bytes())
	return pngChunk(b, "IEND", nil)
}

// Decompression bombs, a few kilobytes whose headers claim images under
// DefaultMaxPixels that would take hundreds of megabytes to gigabytes to
// decode, are refused from the header by both decoders: the error wraps
// ErrImage and says what the decode would need, and almost nothing is
// allocated.
func TestDecodeBombs(t *testing.T) {
	bombs := []struct {
		name string
		data []byte
	}{
		{"progressive jpeg 8000x8000", fixture.JPEGBomb(8000, 8000, true)},
		{"baseline jpeg 8000x8000", fixture.JPEGBomb(8000, 8000, false)},
		{"16-bit rgba png 8000x8000", zeroPNG(t, 8000, 8000, 16, 6, false)[:300]},
		{"interlaced 16-bit gray png 8000x8000", zeroPNG(t, 8000, 8000, 16, 0, true)[:300]},
		{"paletted png 8100x8100", zeroPNG(t, 8100, 8100, 8, 3, false)[:300]},
	}
	for _, c := range bombs {
		if len(c.data) > 1000 {
			t.Fatalf("%s: %d bytes is no bomb", c.name, len(c.data))
		}
		for _, dec := range recimages.Decoders() {
			var err error
			n := fixture.Allocated(func() { _, err = dec.Decode(c.data, decode.Options{Channels: 3}) })
			if !errors.Is(err, decode.ErrImage) || !errors.Is(err, tensorfeed.ErrBadData) ||
				!strings.Contains(err.Error(), "decoding needs about") {
				t.Errorf("%s, %s: err = %v, want the memory bound's error", c.name, dec.Name(), err)
			}
			if n > 1<<20 {
				t.Errorf("%s, %s: %d bytes allocated: the image was decoded", c.name, dec.Name(), n)
			}
		}
	}
}

// A real 16-bit PNG bomb, a valid file that decodes to zeros: over a lower
// bound it is refused without decoding; under the default one it decodes,
// and what the decode allocates stays within what the bound counted.
func TestDecodeBoundPNG16(t *testing.T) {
	data := zeroPNG(t, 1500, 1500, 16, 6, false)
	if len(data) > 64<<10 {
		t.Fatalf("%d bytes", len(data))
	}
	for _, dec := range recimages.Decoders() {
		var err error
		n := fixture.Allocated(func() {
			_, err = dec.Decode(data, decode.Options{Channels: 3, MaxBytes: 16 << 20})
		})
		if !errors.Is(err, decode.ErrImage) || n > 1<<20 {
			t.Errorf("%s: bound 16 MiB: %v, %d bytes allocated", dec.Name(), err, n)
		}
		n = fixture.Allocated(func() { _, err = dec.Decode(data, decode.Options{Channels: 3}) })
		if est := decode.GoDecodeBytes(data, 3); err != nil || n > uint64(est) {
			t.Errorf("%s: default bound: %v, %d bytes allocated, %d counted", dec.Name(), err, n, est)
		}
	}
}

// The bound counts what image/jpeg and image/png really allocate: for every
// kind of image, the decode takes no more than counted, and the count is
// not more than twice the truth (plus the fixed overhead).
func TestDecodeBytesHonest(t *testing.T) {
	const w, h = 640, 480
	enc := func(m image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	jpg := func(m image.Image) []byte {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, m, nil); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	r := image.Rect(0, 0, w, h)
	pal := image.NewPaletted(r, color.Palette{color.Black, color.White})
	cases := map[string][]byte{
		"jpeg 4:2:0":          jpg(image.NewYCbCr(r, image.YCbCrSubsampleRatio420)),
		"jpeg gray":           jpg(image.NewGray(r)),
		"png rgba":            enc(image.NewNRGBA(r)),
		"png rgba 16":         enc(image.NewNRGBA64(r)),
		"png gray":            enc(image.NewGray(r)),
		"png gray 16":         enc(image.NewGray16(r)),
		"png paletted":        enc(pal),
		"png interlaced rgb":  zeroPNG(t, w, h, 8, 2, true),
		"png interlaced gray": zeroPNG(t, w, h, 16, 0, true),
	}
	for name, data := range cases {
		for _, ch := range []int{0, 1, 3, 4} {
			est := decode.GoDecodeBytes(data, ch)
			var err error
			n := fixture.Allocated(func() {
				_, err = decode.Go().Decode(data, decode.Options{Channels: ch})
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n > uint64(est) || uint64(est) > 2*n+128<<10 {
				t.Errorf("%s, %d channels: decode allocated %d bytes, the bound counted %d", name, ch, n, est)
			}
		}
	}
}
