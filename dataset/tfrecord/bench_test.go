package tfrecord_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
)

// benchFile is 4096 records of 1 KiB.
func benchFile(b *testing.B) []byte {
	recs := make([][]byte, 4096)
	for i := range recs {
		recs[i] = bytes.Repeat([]byte{byte(i)}, 1024)
	}
	return encode(b, recs, false)
}

// BenchmarkRead reads the records with the pull Reader, its buffer reused.
// Compare with BenchmarkPlainRead.
func BenchmarkRead(b *testing.B) {
	file := benchFile(b)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		r := tfrecord.NewReader(bytes.NewReader(file), "")
		tfrecord.SetReuse(r, true)
		tfrecord.SetSize(r, int64(len(file)))
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPlainRead is the loop a user would write over the same bytes:
// bufio, binary.LittleEndian and crc32 by hand, both checksums verified.
func BenchmarkPlainRead(b *testing.B) {
	file := benchFile(b)
	table := crc32.MakeTable(crc32.Castagnoli)
	mask := func(c uint32) uint32 { return (c>>15 | c<<17) + 0xa282ead8 }
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	var hdr [12]byte
	var foot [4]byte
	var buf []byte
	for b.Loop() {
		br := bufio.NewReaderSize(bytes.NewReader(file), 64<<10)
		for {
			if _, err := io.ReadFull(br, hdr[:]); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			if mask(crc32.Checksum(hdr[:8], table)) != binary.LittleEndian.Uint32(hdr[8:]) {
				b.Fatal("length crc")
			}
			n := binary.LittleEndian.Uint64(hdr[:])
			if uint64(cap(buf)) < n {
				buf = make([]byte, n)
			}
			buf = buf[:n]
			if _, err := io.ReadFull(br, buf); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(br, foot[:]); err != nil {
				b.Fatal(err)
			}
			if mask(crc32.Checksum(buf, table)) != binary.LittleEndian.Uint32(foot[:]) {
				b.Fatal("data crc")
			}
		}
	}
}

// BenchmarkParseExample parses a typical Example: an encoded image, a
// label, a box and a few tokens.
func BenchmarkParseExample(b *testing.B) {
	var ex tfrecord.Example
	ex.SetBytes("image", make([]byte, 4096))
	ex.SetInt64s("label", 3)
	ex.SetFloat32s("box", 0.1, 0.2, 0.3, 0.4)
	ex.SetBytes("tokens", []byte("a"), []byte("cat"), []byte("sat"), []byte("on"), []byte("the"), []byte("mat"))
	ex.SetInt64s("ids", 1, 200, 30000, 4, 5, 6, 7, 8)
	data := ex.Marshal()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tfrecord.ParseExample(data); err != nil {
			b.Fatal(err)
		}
	}
}
