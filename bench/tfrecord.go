package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source"
)

// tfrecordRows measures reading the records of a TFRecord file (framing and
// both CRCs, no decoding of the payloads), plain and gzip-compressed. The
// file holds the photos' JPEGs, one per record, and is written at run time.
func tfrecordRows(cfg config) ([]Row, error) {
	return photoRows(cfg, "tfrecord", [2]string{"photos.tfrecord", "photos.tfrecord.gz"}, writeTFRecord,
		func(files *photoFiles, path string, gz bool) (Row, error) {
			rs, err := readVsPlain(cfg, files, tfrecord.Open(path, tfrecord.ReuseBuffer()),
				func(sum uint64, rec tfrecord.Record) (uint64, error) { return consumeRecord(sum, rec.Data), nil },
				func() (uint64, error) { return plainTFRecord(path, gz) })
			if err != nil {
				return Row{}, err
			}
			row := newRow("tfrecord", 1, files.count, files.payload, rs[0], rs[1], files.floor)
			row.Note = fmt.Sprintf("%s, one JPEG a record (%s MB file): tfrecord.Open with ReuseBuffer; "+
				"plain: bufio and 12-byte headers by hand, both CRC32Cs checked", files.which, sizeMB(path))
			if gz {
				row.Note = fmt.Sprintf("%s, one JPEG a record (%s MB file, gzip default level): tfrecord.Open with ReuseBuffer; "+
					"plain: gzip.NewReader under bufio, headers by hand, both CRC32Cs checked", files.which, sizeMB(path))
			}
			return row, nil
		})
}

// photoRows writes the photos to a plain and a gzip-compressed file named
// by names (see writePhotoFiles) and measures reading each with measure,
// which returns the variant's row.
func photoRows(cfg config, prefix string, names [2]string, write func(string, []photo, bool) error,
	measure func(files *photoFiles, path string, gz bool) (Row, error)) ([]Row, error) {
	files, err := writePhotoFiles(cfg, prefix, names, write)
	if err != nil {
		return nil, err
	}
	defer files.remove()
	var rows []Row
	for i, variant := range []string{"plain", "gzip"} {
		row, err := measure(files, files.paths[i], i == 1)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", prefix, variant, err)
		}
		row.Variant = variant
		rows = append(rows, row)
	}
	return rows, nil
}

// readVsPlain measures passes of r, each item folded into a checksum by
// fold, and runs of plain, alternately (see measureEach), and checks that
// both read the photos' count of items with the same checksum.
func readVsPlain[T any](cfg config, files *photoFiles, r source.Reader[T], fold func(uint64, T) (uint64, error),
	plain func() (uint64, error)) ([]run, error) {
	var got, want uint64
	var n int
	rs, err := measureEach(cfg.cheapReps(), readPass(r, fold, &got, &n), func() (err error) { want, err = plain(); return err })
	if err != nil {
		return nil, err
	}
	if n != files.count || got != want {
		return nil, fmt.Errorf("library read %d items (checksum %x), plain loop checksum %x, want %d items", n, got, want, files.count)
	}
	return rs, nil
}

// writeTFRecord writes one record per photo to path, gzip-compressed when gz.
func writeTFRecord(path string, photos []photo, gz bool) error {
	var opts []tfrecord.WriterOption
	if gz {
		opts = append(opts, tfrecord.GzipLevel(gzip.DefaultCompression))
	}
	return writeWith(path, func(w io.Writer) *tfrecord.Writer { return tfrecord.NewWriter(w, opts...) },
		func(w *tfrecord.Writer) error {
			for _, p := range photos {
				if err := w.Write(p.data); err != nil {
					return err
				}
			}
			return nil
		})
}

var (
	errPlainTFRecord = errors.New("bad TFRecord framing")
	castagnoli       = crc32.MakeTable(crc32.Castagnoli)
)

// maskCRC is TFRecord's masking of a CRC32C.
func maskCRC(c uint32) uint32 { return (c>>15 | c<<17) + 0xa282ead8 }

// plainTFRecord reads every record of path with bufio (under gzip when gz),
// the 12-byte header decoded by hand, both CRC32Cs checked and one buffer
// reused.
func plainTFRecord(path string, gz bool) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if gz {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return 0, err
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	var hdr [12]byte
	var foot [4]byte
	var buf []byte
	var sum uint64
	for {
		if _, err := io.ReadFull(br, hdr[:]); err == io.EOF {
			return sum, nil
		} else if err != nil {
			return 0, err
		}
		if maskCRC(crc32.Checksum(hdr[:8], castagnoli)) != binary.LittleEndian.Uint32(hdr[8:]) {
			return 0, errPlainTFRecord
		}
		n := binary.LittleEndian.Uint64(hdr[:])
		if n > 1<<30 {
			return 0, errPlainTFRecord
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(br, foot[:]); err != nil {
			return 0, err
		}
		if maskCRC(crc32.Checksum(buf, castagnoli)) != binary.LittleEndian.Uint32(foot[:]) {
			return 0, errPlainTFRecord
		}
		sum = consumeRecord(sum, buf)
	}
}
