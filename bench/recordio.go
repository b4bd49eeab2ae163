package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/baseline"
)

// recordioFile returns the .rec file the recordio rows read: the photo set
// when the data directory has it, else the MNIST records of the
// repository's test data.
func recordioFile(cfg config) (path, note string) {
	p := filepath.Join(cfg.dataDir, "imagerec", "bench", "photos_1536.rec")
	if _, err := os.Stat(p); err == nil && !cfg.tiny {
		return p, "photos_1536.rec"
	}
	return filepath.Join(cfg.repo, "dataset", "imagerec", "testdata", "mnist_t10k_1000_jpg.rec"),
		"mnist_t10k_1000_jpg.rec (photo set not found)"
}

// recordioRead measures reading the RecordIO framing only (no image
// decoding): sequentially, and record by record through the .idx file.
func recordioRead(cfg config) ([]Row, error) {
	path, which := recordioFile(cfg)
	idxPath := strings.TrimSuffix(path, ".rec") + ".idx"
	ctx := context.Background()

	// Count the records and their payload bytes once, untimed.
	var records int
	var payload int64
	for rec, err := range recordio.Open(path).All(ctx) {
		if err != nil {
			return nil, err
		}
		records++
		payload += int64(len(rec.Data))
	}
	floor, err := measureFloor(cfg.cheapReps(), payload, 64<<10)
	if err != nil {
		return nil, err
	}

	seq := recordio.Open(path, recordio.ReuseBuffer())
	var got, want uint64
	var n int
	rs, err := measureEach(cfg.cheapReps(), readPass(seq, foldRecord, &got, &n),
		func() (err error) { want, err = plainRecordsSeq(path); return err })
	if err != nil {
		return nil, err
	}
	pipeSeq, plainSeq := rs[0], rs[1]
	if got != want || n != records {
		return nil, fmt.Errorf("recordio sequential: library (%d records) and plain loop differ (%x, %x)", n, got, want)
	}
	rowSeq := newRow("recordio", 1, records, payload, pipeSeq, plainSeq, floor)
	rowSeq.Variant = "sequential"
	rowSeq.Note = which + ": recordio.Open with ReuseBuffer; plain: bufio and 8-byte part headers by hand"

	rs, err = measureEach(cfg.cheapReps(), func() error {
		got = 0
		ix, err := recordio.ReadIndex(context.Background(), idxPath)
		if err != nil {
			return err
		}
		file, err := os.Open(path)
		if err != nil {
			return err
		}
		defer file.Close()
		st, err := file.Stat()
		if err != nil {
			return err
		}
		f := recordio.NewRandomReader(path, file, st.Size(), ix)
		var buf []byte
		for i := range ix.Len() {
			if buf, err = f.AppendAt(buf[:0], ix.Entry(i).Offset); err != nil {
				return err
			}
			got = consumeRecord(got, buf)
		}
		return nil
	}, func() (err error) { want, err = plainRecordsIndexed(path, idxPath); return err })
	if err != nil {
		return nil, err
	}
	pipeIdx, plainIdx := rs[0], rs[1]
	if got != want {
		return nil, fmt.Errorf("recordio indexed: library and plain loop differ (%x, %x)", got, want)
	}
	rowIdx := newRow("recordio", 1, records, payload, pipeIdx, plainIdx, floor)
	rowIdx.Variant = "indexed"
	rowIdx.Note = which + ": NewRandomReader, AppendAt in .idx order into one buffer; plain: .idx parsed by hand, one ReadAt per record"
	return []Row{rowSeq, rowIdx}, nil
}

// foldRecord folds a record into a checksum, for readPass.
func foldRecord(sum uint64, rec recordio.Record) (uint64, error) {
	return consumeRecord(sum, rec.Data), nil
}

// consumeRecord folds a payload into a checksum without reading all of it:
// the framing is what is measured.
func consumeRecord(sum uint64, data []byte) uint64 {
	sum = sum*31 + uint64(len(data))
	if len(data) > 0 {
		sum += uint64(data[0]) + uint64(data[len(data)-1])<<8
	}
	return sum
}

var errPlainFormat = errors.New("bad RecordIO framing")

// plainRecordsSeq reads every record of path with bufio and the part
// headers decoded by hand, joining split records.
func plainRecordsSeq(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var hdr [8]byte
	var buf []byte
	var sum uint64
	for {
		buf = buf[:0]
		for first := true; ; first = false {
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				if err == io.EOF && first {
					return sum, nil
				}
				return 0, err
			}
			if binary.LittleEndian.Uint32(hdr[:]) != recordio.Magic {
				return 0, errPlainFormat
			}
			lrec := binary.LittleEndian.Uint32(hdr[4:])
			cflag, n := lrec>>29, int(lrec&(1<<29-1))
			buf = slices.Grow(buf, n)
			if _, err := io.ReadFull(br, buf[len(buf):len(buf)+n]); err != nil {
				return 0, err
			}
			buf = buf[:len(buf)+n]
			if _, err := br.Discard((4 - n%4) % 4); err != nil {
				return 0, err
			}
			if cflag == 0 || cflag == 3 {
				break
			}
			buf = binary.LittleEndian.AppendUint32(buf, recordio.Magic)
		}
		sum = consumeRecord(sum, buf)
	}
}

// plainRecordsIndexed parses the .idx file and reads each record, in the
// file's order, with one ReadAt of the bytes up to the next record.
func plainRecordsIndexed(path, idxPath string) (uint64, error) {
	idx, err := os.ReadFile(idxPath)
	if err != nil {
		return 0, err
	}
	var offs []int64
	for line := range strings.Lines(string(idx)) {
		_, pos, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			continue
		}
		off, err := strconv.ParseInt(pos, 10, 64)
		if err != nil {
			return 0, err
		}
		offs = append(offs, off)
	}
	f, size, err := baseline.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sorted := slices.Clone(offs)
	slices.Sort(sorted)
	var raw, buf []byte
	var sum uint64
	for _, off := range offs {
		i, _ := slices.BinarySearch(sorted, off)
		end := size
		if i+1 < len(sorted) {
			end = sorted[i+1]
		}
		raw = slices.Grow(raw[:0], int(end-off))[:end-off]
		if _, err := f.ReadAt(raw, off); err != nil {
			return 0, err
		}
		buf = buf[:0]
		for p := 0; ; {
			if p+8 > len(raw) || binary.LittleEndian.Uint32(raw[p:]) != recordio.Magic {
				return 0, errPlainFormat
			}
			lrec := binary.LittleEndian.Uint32(raw[p+4:])
			cflag, n := lrec>>29, int(lrec&(1<<29-1))
			if p+8+n > len(raw) {
				return 0, errPlainFormat
			}
			buf = append(buf, raw[p+8:p+8+n]...)
			p += 8 + (n+3)&^3
			if cflag == 0 || cflag == 3 {
				break
			}
			buf = binary.LittleEndian.AppendUint32(buf, recordio.Magic)
		}
		sum = consumeRecord(sum, buf)
	}
	return sum, nil
}
