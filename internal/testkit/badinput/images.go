package badinput

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
)

// Image is a bare JPEG or PNG file, as "im2rec list" finds them in a
// folder and "tensorfeed check" checks them; the image decoders read it.
const Image Format = "image"

// sof2Bomb returns the start of a progressive JPEG whose frame header (SOF2)
// declares 30000 x 30000 pixels in three components, followed by a Huffman
// table and the first scan's header and a few bytes of it. A decoder that
// allocates its coefficient buffers from the frame header asks for
// gigabytes.
func sof2Bomb() []byte { return sof2Header(30000, 30000) }

// sof2Header returns the start of a progressive JPEG of w x h pixels in
// three components, as sof2Bomb describes it.
func sof2Header(w, h uint16) []byte {
	b := []byte{0xFF, 0xD8}
	// DQT: table 0, all ones.
	b = append(b, 0xFF, 0xDB, 0x00, 0x43, 0x00)
	b = append(b, bytes.Repeat([]byte{1}, 64)...)
	// SOF2: precision 8, h x w, components 1-3, 1x1 sampling,
	// quantisation table 0.
	b = append(b, 0xFF, 0xC2, 0x00, 0x11, 0x08, byte(h>>8), byte(h), byte(w>>8), byte(w), 0x03,
		0x01, 0x11, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00)
	// DHT: DC table 0 with one code of length 1 for symbol 0.
	b = append(b, 0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01)
	b = append(b, make([]byte, 15)...)
	b = append(b, 0x00)
	// SOS: the DC first scan of the three components.
	b = append(b, 0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00)
	b = append(b, make([]byte, 32)...)
	return append(b, 0xFF, 0xD9)
}

// pngWriter returns a PNG signature and a function that appends a chunk to
// it, with its length and CRC.
func pngWriter() (*[]byte, func(typ string, data []byte)) {
	out := []byte("\x89PNG\r\n\x1a\n")
	return &out, func(typ string, data []byte) {
		out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
		start := len(out)
		out = append(out, typ...)
		out = append(out, data...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	}
}

// png16Bomb returns a valid 16-bit gray PNG of 20000 x 20000 zeros: 800 MB
// of pixels in under 1 MB, since zeros compress about 1000 to 1.
func png16Bomb() []byte {
	const w, h = 20000, 20000
	out, chunk := pngWriter()
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 16, 0, 0, 0, 0) // depth 16, gray, deflate, filter 0, no interlace
	chunk("IHDR", ihdr)
	// Each row is a filter byte (0) and 2*w zero bytes: all zeros.
	chunk("IDAT", zlibZeros(h*(1+2*w), 100*(1+2*w)))
	chunk("IEND", nil)
	return *out
}

// pngHuge returns a PNG whose IHDR, its CRC right, claims w x h 8-bit RGB
// pixels, followed by one row of zeros as image data and IEND: a file of a
// few hundred bytes for which a decoder that trusts the header allocates
// w*h*3 bytes.
func pngHuge(w, h uint32) []byte {
	out, chunk := pngWriter()
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // depth 8, RGB, deflate, filter 0, no interlace
	chunk("IHDR", ihdr)
	chunk("IDAT", zlibZeros(1+3*int64(w), 1<<15))
	chunk("IEND", nil)
	return *out
}

// pngCorruptChunk returns a PNG whose image data (IDAT) has one byte
// changed, so that the chunk's CRC does not match.
func pngCorruptChunk() []byte {
	b := pngBytes(3)
	i := bytes.Index(b, []byte("IDAT"))
	b[i+4+2] ^= 0x55 // a byte of the zlib stream after its 2-byte header
	return b
}

// bareImages writes JPEG and PNG files, good and bad, as a folder given to
// "im2rec list" may hold them.
func (w *writer) bareImages() {
	w.add(good("img_bare_good_jpeg", Image), "img_bare_good.jpg", jpegBytes(4))
	w.add(good("img_bare_good_png", Image), "img_bare_good.png", pngBytes(5))
	j := jpegBytes(6)
	w.add(bad("img_bare_truncated_jpeg", Image, "a JPEG file cut inside its scan, 8 bytes before its end"),
		"img_bare_truncated.jpg", j[:len(j)-8])
	w.add(bad("img_bare_truncated_header", Image, "a JPEG file cut inside its headers"),
		"img_bare_truncated_header.jpg", j[:40])
	w.add(bad("img_bare_corrupt_chunk_png", Image, "a PNG whose IDAT chunk has a byte changed, its CRC wrong"),
		"img_bare_corrupt_chunk.png", pngCorruptChunk())
	p := pngBytes(7)
	w.add(bad("img_bare_truncated_png", Image, "a PNG file that ends before its IEND chunk"),
		"img_bare_truncated.png", p[:len(p)-20])
	w.add(bad("img_bare_png_100000", Image, "a PNG whose header claims 100000 x 100000 pixels"),
		"img_bare_png_100000.png", pngHuge(100000, 100000))
	w.add(bad("img_bare_sof2_8000", Image, "a progressive JPEG of 8000 x 8000 pixels: under the pixel bound, over the memory bound"),
		"img_bare_sof2_8000.jpg", sof2Header(8000, 8000))
	w.add(bad("img_bare_not_image", Image, "a text file named .jpg"),
		"img_bare_not_image.jpg", []byte("this is not a photograph\n"))
	w.add(bad("img_bare_gif", Image, "a GIF file named .png"),
		"img_bare_gif.png", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
}

func (w *writer) images() {
	one := func(payload []byte) []byte {
		rec, _ := recFile(record(0, pngBytes(0)), payload, record(2, pngBytes(2)))
		return rec
	}
	w.add(good("img_good_jpeg", ImageRecord), "img_good_jpeg.rec", one(record(1, jpegBytes(1))))
	labels := imagerec.AppendRecord(nil, imagerec.Header{Flag: 3, ID: 1, Labels: []float32{1, 2, 3}}, pngBytes(1))
	w.add(good("img_good_label_array", ImageRecord), "img_good_label_array.rec", one(labels))

	j := jpegBytes(1)
	corrupt := bytes.Clone(j)
	for i := len(j) / 2; i < len(j)-2; i++ {
		corrupt[i] = 0xFF // markers where entropy-coded data should be
	}
	w.add(bad("img_corrupt_jpeg", ImageRecord, "record 1's JPEG data is corrupt"), "img_corrupt_jpeg.rec", one(record(1, corrupt)))
	w.add(bad("img_truncated_jpeg", ImageRecord, "record 1's JPEG ends half-way"), "img_truncated_jpeg.rec", one(record(1, j[:len(j)/2])))
	w.add(bad("img_sof2_30000", ImageRecord, "record 1 is a progressive JPEG whose header declares 30000 x 30000 pixels"),
		"img_sof2_30000.rec", one(record(1, sof2Bomb())))
	w.add(bad("img_png16_20000", ImageRecord, "record 1 is a 16-bit PNG of 20000 x 20000 zeros"),
		"img_png16_20000.rec", one(record(1, png16Bomb())))
	w.add(bad("img_too_small", ImageRecord, "record 1's image is 2 bytes, too small to be one"),
		"img_too_small.rec", one(record(1, []byte{0xFF, 0xD8})))
	w.add(bad("img_not_image", ImageRecord, "record 1's image is neither JPEG nor PNG"),
		"img_not_image.rec", one(record(1, []byte("GIF89a, or anything else"))))
	w.add(bad("img_short_header", ImageRecord, "record 1 is 10 bytes, shorter than the 24-byte header"),
		"img_short_header.rec", one([]byte("0123456789")))
	flag := record(1, pngBytes(1))
	binary.LittleEndian.PutUint32(flag, 1000) // 1000 labels: past the record's end
	w.add(bad("img_header_labels_past_end", ImageRecord, "record 1's header declares 1000 labels, more than the record holds"),
		"img_header_labels_past_end.rec", one(flag))
	w.bareImages()
}
