package badinput

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
)

// Gigabytes of zeros are not compressed byte by byte: a deflate stream may
// be a series of independently compressed, byte-aligned segments (each
// ended by a flush), so the segment for one run of zeros is compressed once
// and repeated. That keeps generating the bombs fast, even under the race
// detector.

// segment returns data compressed as non-final deflate blocks, ended by a
// sync flush so that the next segment starts on a byte boundary. It refers
// to nothing before itself, so segments concatenate.
func segment(data []byte) []byte {
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.BestCompression)
	fw.Write(data)
	fw.Flush()
	return b.Bytes()
}

// finalBlock is an empty final block with fixed Huffman codes: it ends a
// deflate stream.
var finalBlock = []byte{0x03, 0x00}

// deflateZeros returns deflate segments for prefix followed by n zero
// bytes, and the stream's end.
func deflateZeros(prefix []byte, n int64, chunk int) []byte {
	out := segment(prefix)
	seg := segment(make([]byte, chunk))
	for ; n >= int64(chunk); n -= int64(chunk) {
		out = append(out, seg...)
	}
	out = append(out, segment(make([]byte, n))...)
	return append(out, finalBlock...)
}

// gzipZeros returns a gzip stream of prefix followed by n zero bytes.
func gzipZeros(prefix []byte, n int64) []byte {
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff} // deflate, no name, best compression, unknown OS
	out = append(out, deflateZeros(prefix, n, 1<<20)...)
	crc := crc32.ChecksumIEEE(prefix)
	zeros := make([]byte, 1<<20)
	for left := n; left > 0; left -= int64(len(zeros)) {
		crc = crc32.Update(crc, crc32.IEEETable, zeros[:min(left, int64(len(zeros)))])
	}
	out = binary.LittleEndian.AppendUint32(out, crc)
	return binary.LittleEndian.AppendUint32(out, uint32(int64(len(prefix))+n))
}

// zlibZeros returns a zlib stream of n zero bytes.
func zlibZeros(n int64, chunk int) []byte {
	out := []byte{0x78, 0xda} // deflate, 32 KiB window, best compression
	out = append(out, deflateZeros(nil, n, chunk)...)
	// Adler-32 of zeros: the byte sum stays 1, the second sum counts the
	// bytes.
	return binary.BigEndian.AppendUint32(out, uint32(n%65521)<<16|1)
}
