package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tensorfeed/tensorfeed/dataset/format"
)

// fileFormat is a format "tensorfeed check" and "show" know, named as
// --format takes it: the format registry's names (dataset/format), and
// the three kinds of file that are im2rec's inputs and outputs rather than
// data the registry reads.
type fileFormat string

const (
	formatIDX       fileFormat = "idx"      // IDX, plain or gzip
	formatCSV       fileFormat = "csv"      // CSV rows, as dataset/csv reads them
	formatRecordIO  fileFormat = "recordio" // RecordIO: image records decoded, else the framing; an .idx checked against its .rec
	formatTFRecord  fileFormat = "tfrecord" // TFRecord, plain or gzip
	formatWDS       fileFormat = "wds"      // a WebDataset tar shard, plain or gzip
	formatParquet   fileFormat = "parquet"  // Apache Parquet
	formatList      fileFormat = "lst"      // im2rec .lst
	formatMeanImage fileFormat = "meanimg"  // an MXNet NDArray mean image file
	formatImage     fileFormat = "image"    // a bare JPEG or PNG file, or a folder of them
)

// formats lists the formats in the order usage shows them: the
// registry's, then im2rec's inputs.
var formats = func() []fileFormat {
	var fs []fileFormat
	for _, n := range format.Default().Names() {
		fs = append(fs, fileFormat(n))
	}
	return append(fs, formatList, formatMeanImage, formatImage)
}()

// renamedFormats are names that --format took before it took the
// registry's: a user who gives one is told the new name.
var renamedFormats = map[string]string{"rec": "recordio", "imagerec": "recordio", "recidx": "recordio", "lines": "csv"}

// parseFormat returns the --format value s, one of known ("" detects),
// or a usage error that lists them, naming the new name of an old one.
func parseFormat(s string, known ...fileFormat) (fileFormat, error) {
	if s == "" || slices.Contains(known, fileFormat(s)) {
		return fileFormat(s), nil
	}
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = string(k)
	}
	if n, ok := renamedFormats[s]; ok && slices.Contains(known, fileFormat(n)) {
		if s == "lines" {
			n += " --lines"
		}
		return "", usagef("--format %s is now --format %s, the format registry's name (known: %s)", s, n, strings.Join(names, ", "))
	}
	return "", usagef("unknown --format %q (known: %s)", s, strings.Join(names, ", "))
}

// meanImageMagic starts an MXNet NDArray list file, as a mean image is
// saved.
const meanImageMagic = 0x112

// headSize is how much of a file detectFormat looks at: what the
// registry's formats recognise a file from.
const headSize = format.HeadSize

// detectFormat guesses a file's format from its name and its first bytes
// (head, at most headSize of them). Magic numbers come first, so that a
// misnamed binary file is still recognised; text formats are told apart by
// extension, then by sniffing the first line. It is a pure function of its
// arguments: the same input always gives the same answer.
func detectFormat(name string, head []byte) (fileFormat, error) {
	if f, ok := format.Default().Detect(head); ok && f != string(formatCSV) {
		return fileFormat(f), nil // the registry's binary formats, by their magic
	}
	lower := strings.ToLower(filepath.Base(name))
	ext := filepath.Ext(lower)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		// gzip: IDX, TFRecord or a tar shard inside. What the head
		// decompresses to is looked at first, then the name.
		var inner [headSize]byte
		n := 0
		if zr, err := gzip.NewReader(bytes.NewReader(head)); err == nil {
			n, _ = io.ReadFull(zr, inner[:])
		}
		switch {
		case isTFRecordName(lower):
			return formatTFRecord, nil
		case isTarName(lower):
			return formatWDS, nil
		}
		if n >= 2 && (inner[0] != 0 || inner[1] != 0) {
			return "", fmt.Errorf("unknown format: a gzip stream that holds neither an IDX file, TFRecord nor a tar shard (it starts % x)", inner[:min(n, 4)])
		}
		// An IDX magic, or a stream cut or corrupt before one: the IDX
		// reader says where it breaks.
		return formatIDX, nil
	case len(head) >= 8 && binary.LittleEndian.Uint64(head) == meanImageMagic:
		return formatMeanImage, nil
	case isImage(head):
		return formatImage, nil
	case isTFRecordName(lower):
		return formatTFRecord, nil
	case isTarName(lower):
		return formatWDS, nil
	case len(head) >= 2 && head[0] == 0 && head[1] == 0:
		return formatIDX, nil
	case isIDXName(lower):
		return formatIDX, nil
	case ext == ".rec":
		return formatRecordIO, nil
	case ext == ".parquet":
		return formatParquet, nil // the reader says what is wrong with its magic
	case len(head) > 0 && (ext == ".jpg" || ext == ".jpeg" || ext == ".png"):
		return formatImage, nil // the image check says what is wrong with its magic
	}
	if !looksText(head) {
		if len(head) == 0 {
			return "", fmt.Errorf("unknown format: an empty file")
		}
		return "", fmt.Errorf("unknown format: binary data starting % x, neither IDX (00 00 type dims), gzip (1f 8b), RecordIO (0a 23 d7 ce), TFRecord (a length whose CRC verifies), tar (ustar at offset 257) nor Parquet (PAR1), JPEG (ff d8 ff) nor PNG (89 50 4e 47)", head[:min(len(head), 4)])
	}
	switch ext {
	case ".lst":
		return formatList, nil
	case ".idx":
		return formatRecordIO, nil
	case ".csv", ".tsv", ".txt", ".data":
		return formatCSV, nil
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	fields := strings.Split(strings.TrimSpace(string(line)), "\t")
	if _, err := strconv.ParseUint(strings.TrimSpace(fields[0]), 10, 64); err == nil {
		switch {
		case len(fields) >= 3:
			return formatList, nil
		case len(fields) == 2:
			if _, err := strconv.ParseInt(strings.TrimSpace(fields[1]), 10, 64); err == nil {
				return formatRecordIO, nil
			}
		}
	}
	if len(bytes.TrimSpace(head)) > 0 && bytes.ContainsAny(line, ",;0123456789") {
		return formatCSV, nil
	}
	return "", fmt.Errorf("unknown format: text that is neither CSV nor a .lst or .idx file; give --format")
}

// isImage reports whether head starts as a JPEG does (an SOI marker, FF D8,
// then the next marker's FF) or as a PNG does (the first 4 bytes of its
// signature, so that a file cut inside the signature is still checked, and
// found truncated, as an image).
func isImage(head []byte) bool {
	return len(head) >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff ||
		len(head) >= 4 && string(head[:4]) == "\x89PNG"
}

// isTarName reports whether a lower-case file name is a tar shard's.
func isTarName(lower string) bool {
	return strings.HasSuffix(lower, ".tar") || strings.HasSuffix(lower, ".tar.gz") || strings.HasSuffix(lower, ".tgz")
}

// isTFRecordName reports whether a lower-case file name is a TFRecord
// file's: .tfrecord or .tfrecords, with or without .gz.
func isTFRecordName(lower string) bool {
	lower = strings.TrimSuffix(lower, ".gz")
	return strings.HasSuffix(lower, ".tfrecord") || strings.HasSuffix(lower, ".tfrecords")
}

// isIDXName reports whether a file name is an IDX name as MNIST's files
// are: train-images-idx3-ubyte, t10k-labels.idx1-ubyte.gz, ...
func isIDXName(lower string) bool {
	lower = strings.TrimSuffix(lower, ".gz")
	return strings.Contains(lower, "-ubyte") || strings.Contains(lower, ".idx1") ||
		strings.Contains(lower, ".idx2") || strings.Contains(lower, ".idx3") || strings.Contains(lower, ".idx4") ||
		strings.HasSuffix(lower, "ubyte")
}

// looksText reports whether head is UTF-8 text without control bytes other
// than tab, CR, LF and form feed. A rune cut at the end of head is allowed.
func looksText(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			return !utf8.FullRune(head[i:]) // a rune cut by the end of head is text
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f {
			return false
		}
		i += n
	}
	return true
}
