package badinput

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
)

// idxFile returns an IDX file: the magic 00 00 type len(dims), the
// dimensions, then data.
func idxFile(typ byte, dims []uint32, data []byte) []byte {
	b := []byte{0, 0, typ, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

// gz compresses b at BestCompression.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// bombSize is what the gzip bomb expands to.
const bombSize = 1 << 30

func (w *writer) idx() {
	// Three 4x4 images of uint8: a 16-byte header, then 48 bytes.
	data := make([]byte, 48)
	for i := range data {
		data[i] = byte(i * 5)
	}
	okFile := idxFile(0x08, []uint32{3, 4, 4}, data)
	w.add(good("idx_good", IDX), "idx_good-idx3-ubyte", okFile)
	w.add(good("idx_good_gzip", IDX), "idx_good_gzip-idx3-ubyte.gz", gz(okFile))
	w.add(good("idx_good_labels", IDX), "idx_good_labels-idx1-ubyte", idxFile(0x08, []uint32{3}, []byte{7, 0, 9}))

	w.add(bad("idx_bad_magic", IDX, "the magic does not start with two zero bytes"),
		"idx_bad_magic-idx3-ubyte", append([]byte{0x08, 0x03, 0, 0}, okFile[4:]...))
	w.add(bad("idx_bad_type", IDX, "element type 0x07 is not an IDX type"),
		"idx_bad_type-idx3-ubyte", idxFile(0x07, []uint32{3, 4, 4}, data))
	// 1 x 65536 x 1048576 bytes: one record of 64 GiB, and the file ends
	// after the header. A reader that sizes its buffer from the header
	// allocates 64 GiB.
	w.add(bad("idx_huge_record", IDX, "the header declares one record of 64 GiB; the file holds none of it"),
		"idx_huge_record-idx3-ubyte", idxFile(0x08, []uint32{1, 65536, 1 << 20}, nil))
	// 2^32-1 records of zero bytes each: a reader would produce four
	// billion empty samples from a 16-byte file.
	w.add(bad("idx_zero_dim", IDX, "2^32-1 records of a zero dimension: records of no elements"),
		"idx_zero_dim-idx3-ubyte", idxFile(0x08, []uint32{1<<32 - 1, 0, 28}, nil))
	// Ten 28x28 images, then 1 GiB of zeros after the last record: about
	// 1 MB on disk.
	mnist := idxFile(0x08, []uint32{10, 28, 28}, make([]byte, 10*28*28))
	c := bad("idx_gzip_bomb", IDX, "a gzip stream of 1 MB that expands to 1 GiB past the 10 records its header declares")
	c.Large = true
	if w.large {
		w.add(c, "idx_gzip_bomb-idx3-ubyte.gz", gzipZeros(mnist, bombSize))
	}

	// Truncation at every structural boundary of okFile.
	for _, t := range []struct {
		name string
		n    int
	}{
		{"in_magic", 2}, {"after_magic", 4}, {"in_dim0", 6}, {"in_dim1", 10}, {"in_dim2", 14},
		{"after_header", 16}, {"mid_record0", 16 + 7}, {"mid_record2", 16 + 40}, {"last_byte", len(okFile) - 1},
	} {
		w.add(bad("idx_truncated_"+t.name, IDX, "the file ends after %d of its %d bytes", t.n, len(okFile)),
			"idx_truncated_"+t.name+"-idx3-ubyte", okFile[:t.n])
	}
	z := gz(okFile)
	w.add(bad("idx_gzip_truncated_trailer", IDX, "the gzip stream ends inside its 8-byte trailer"),
		"idx_gzip_truncated_trailer-idx3-ubyte.gz", z[:len(z)-3])
	w.add(bad("idx_gzip_truncated_stream", IDX, "the gzip stream ends inside its compressed data"),
		"idx_gzip_truncated_stream-idx3-ubyte.gz", z[:len(z)/2])
	bc := bytes.Clone(z)
	bc[len(bc)-8] ^= 0xff // the CRC-32
	w.add(bad("idx_gzip_bad_crc", IDX, "the gzip trailer's CRC-32 does not match"),
		"idx_gzip_bad_crc-idx3-ubyte.gz", bc)
	w.add(bad("idx_trailing_data", IDX, "bytes after the last record"),
		"idx_trailing_data-idx3-ubyte", append(bytes.Clone(okFile), 1, 2, 3))
}
