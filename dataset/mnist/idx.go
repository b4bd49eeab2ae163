package mnist

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/tensorfeed/tensorfeed/sample"
)

// The IDX element type codes (the third byte of the magic number).
var idxTypes = map[byte]sample.DType{
	0x08: sample.Uint8,
	0x09: sample.Int8,
	0x0B: sample.Int16,
	0x0C: sample.Int32,
	0x0D: sample.Float32,
	0x0E: sample.Float64,
}

// maxDims bounds the number of dimensions an IDX header may declare; the
// format allows 255, no real file has more than a handful.
const maxDims = 32

// maxBytes bounds the data size a header may declare (1 TiB), so that a
// corrupt header is reported rather than trusted.
const maxBytes = 1 << 40

// Header is the header of an IDX file: the element type and the size of
// each dimension. The first dimension counts the records (for MNIST, the
// images or labels); a file with no dimensions holds one scalar.
type Header struct {
	DType sample.DType
	Dims  []int
}

// Magic returns the header's magic number, for example 0x00000803 for
// MNIST images.
func (h Header) Magic() uint32 {
	var t byte
	for code, d := range idxTypes {
		if d == h.DType {
			t = code
		}
	}
	return uint32(t)<<8 | uint32(len(h.Dims))
}

// Records returns the number of records: the first dimension, or 1 for a
// scalar file.
func (h Header) Records() int {
	if len(h.Dims) == 0 {
		return 1
	}
	return h.Dims[0]
}

// RecordElems returns the number of elements in one record: the product of
// the dimensions after the first.
func (h Header) RecordElems() int {
	if len(h.Dims) == 0 {
		return 1
	}
	return sample.Elems(h.Dims[1:])
}

// Size returns the size of the header in bytes: the offset of the first
// element.
func (h Header) Size() int64 { return 4 + 4*int64(len(h.Dims)) }

// IDXReader reads an IDX file one record at a time, as encoding/csv's Reader
// reads one record at a time. Its methods return io.EOF after the last
// record, once it has checked that nothing follows it. An IDXReader does not
// close the underlying reader.
type IDXReader struct {
	name     string
	hdr      Header
	br       *bufio.Reader
	gz       bool
	off      int64 // offset of the next byte in the uncompressed stream
	rec      int   // index of the next record
	recBytes int
	err      error // sticky error, io.EOF at the end
	scratch  []byte
}

// bufSize is the size of the buffer between the reader and the decoder.
const bufSize = 1 << 16

// NewIDXReader reads an IDX header from r and returns a reader positioned at
// the first record. A gzip stream is recognised by its first two bytes and
// decompressed. name is used in errors (usually the file's path).
func NewIDXReader(r io.Reader, name string) (*IDXReader, error) {
	br := bufio.NewReaderSize(r, bufSize)
	x := &IDXReader{name: name, br: br}
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &FormatError{File: name, Offset: 0, Msg: "bad gzip header", Err: err}
		}
		zr.Multistream(true)
		x.br = bufio.NewReaderSize(zr, bufSize)
		x.gz = true
	}
	if err := x.readHeader(); err != nil {
		return nil, err
	}
	return x, nil
}

func (x *IDXReader) readHeader() error {
	var magic [4]byte
	n, err := io.ReadFull(x.br, magic[:])
	x.off += int64(n)
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return x.fail(0, "empty file", nil)
	case err != nil:
		return x.readErr(err, "the header")
	}
	if magic[0] != 0 || magic[1] != 0 {
		return x.fail(0, fmt.Sprintf("bad magic %02x %02x %02x %02x (want 00 00 TT DD)", magic[0], magic[1], magic[2], magic[3]), nil)
	}
	dt, ok := idxTypes[magic[2]]
	if !ok {
		return x.fail(2, fmt.Sprintf("unknown element type 0x%02x", magic[2]), nil)
	}
	nd := int(magic[3])
	if nd > maxDims {
		return x.fail(3, fmt.Sprintf("%d dimensions (at most %d supported)", nd, maxDims), nil)
	}
	dims := make([]int, nd)
	size := int64(dt.Size())
	var b [4]byte
	for i := range dims {
		start := x.off
		n, err := io.ReadFull(x.br, b[:])
		x.off += int64(n)
		if err != nil {
			return x.readErr(err, fmt.Sprintf("the size of dimension %d", i))
		}
		d := int64(binary.BigEndian.Uint32(b[:]))
		// Zero sizes count as 1 here, so that no product of any
		// subset of the dimensions can overflow.
		if size > maxBytes/max(d, 1) {
			return x.fail(start, fmt.Sprintf("dimensions %v declare more than %d bytes", append(dims[:i:i], int(d)), int64(maxBytes)), nil)
		}
		dims[i] = int(d)
		size *= max(d, 1)
	}
	x.hdr = Header{DType: dt, Dims: dims}
	x.recBytes = x.hdr.RecordElems() * dt.Size()
	return nil
}

// fail makes a FormatError at offset off.
func (x *IDXReader) fail(off int64, msg string, err error) error {
	return &FormatError{File: x.name, Offset: off, Msg: msg, Err: err}
}

// readErr turns an error from the stream into a FormatError at the current
// offset. A short read is a truncated file; gzip and flate errors are
// corrupt or cut streams.
func (x *IDXReader) readErr(err error, what string) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	msg := "file ends in " + what
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "cannot read " + what
	}
	if x.gz {
		msg += " (gzip stream)"
	}
	return x.fail(x.off, msg, err)
}

// Header returns the file's header.
func (x *IDXReader) Header() Header { return x.hdr }

// Name returns the name given to NewIDXReader.
func (x *IDXReader) Name() string { return x.name }

// Gzipped reports whether the file is gzip-compressed.
func (x *IDXReader) Gzipped() bool { return x.gz }

// Offset returns the offset of the next record in the uncompressed stream.
func (x *IDXReader) Offset() int64 { return x.off }

// RecordBytes returns the size of one record in bytes.
func (x *IDXReader) RecordBytes() int { return x.recBytes }

// ReadRaw reads the next record's bytes (big-endian elements) into dst,
// which must hold at least RecordBytes bytes. It returns io.EOF after the
// last record, or an error wrapping ErrFormat when the file is truncated,
// corrupt, or has data after its last record. Errors are sticky.
func (x *IDXReader) ReadRaw(dst []byte) error {
	if x.err != nil {
		return x.err
	}
	if x.rec == x.hdr.Records() {
		x.err = x.checkEnd()
		return x.err
	}
	if len(dst) < x.recBytes {
		panic(fmt.Sprintf("mnist: ReadRaw: buffer of %d bytes for records of %d", len(dst), x.recBytes))
	}
	n, err := io.ReadFull(x.br, dst[:x.recBytes])
	x.off += int64(n)
	if err != nil {
		x.err = x.readErr(err, fmt.Sprintf("record %d of %d", x.rec, x.hdr.Records()))
		return x.err
	}
	x.rec++
	return nil
}

// Skip skips the next n records (fewer when fewer are left). Skipping a
// gzipped file still decompresses what it skips.
func (x *IDXReader) Skip(n int) error {
	if x.err != nil {
		return x.err
	}
	n = min(n, x.hdr.Records()-x.rec)
	if n <= 0 {
		return nil
	}
	want := n * x.recBytes
	got, err := x.br.Discard(want)
	x.off += int64(got)
	if err != nil {
		x.err = x.readErr(err, fmt.Sprintf("record %d of %d", x.rec+got/max(x.recBytes, 1), x.hdr.Records()))
		return x.err
	}
	x.rec += n
	return nil
}

// checkEnd reports io.EOF when the stream ends right after the last record,
// and an error when more data follows (or when the end cannot be read: a
// gzip stream verifies its checksum only there).
func (x *IDXReader) checkEnd() error {
	_, err := x.br.Peek(1)
	switch {
	case errors.Is(err, io.EOF):
		return io.EOF
	case err != nil:
		msg := "cannot read the end of the file"
		if x.gz {
			msg += " (gzip stream)"
		}
		return x.fail(x.off, msg, err)
	}
	n, _ := x.br.Discard(1 << 30)
	return x.fail(x.off, fmt.Sprintf("%d bytes or more after the last record", n), nil)
}

// Read decodes the next record into dst, converting each element to E as a
// Go conversion does. dst must hold at least Header().RecordElems()
// elements. It returns io.EOF after the last record.
func Read[E sample.Number](x *IDXReader, dst []E) error {
	if n := x.hdr.RecordElems(); len(dst) < n {
		panic(fmt.Sprintf("mnist: Read: buffer of %d elements for records of %d", len(dst), n))
	}
	if x.scratch == nil {
		x.scratch = make([]byte, x.recBytes)
	}
	if err := x.ReadRaw(x.scratch); err != nil {
		return err
	}
	decode(x.hdr.DType, x.scratch, dst)
	return nil
}

// IDX is a whole IDX file in memory.
type IDX struct {
	Header
	// Raw holds the elements as stored: big-endian, row-major,
	// Elems()*DType.Size() bytes.
	Raw []byte
}

// Elems returns the number of elements in the file.
func (x *IDX) Elems() int { return sample.Elems(x.Dims) }

// ReadIDX reads a whole IDX file, gzipped or not.
func ReadIDX(path string) (*IDX, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeIDX(f, path)
}

// DecodeIDX reads a whole IDX stream, gzipped or not; name is used in
// errors.
func DecodeIDX(r io.Reader, name string) (*IDX, error) {
	x, err := NewIDXReader(r, name)
	if err != nil {
		return nil, err
	}
	h := x.Header()
	n := h.Records()
	// Grow as records arrive rather than trusting the header's size up
	// front: a corrupt header must give an error, not a huge allocation.
	raw := make([]byte, 0, min(n*x.recBytes, 1<<22))
	if x.recBytes == 0 {
		x.rec = n // empty records: nothing to read
	}
	for x.rec < n {
		k := len(raw)
		raw = slices.Grow(raw, x.recBytes)[:k+x.recBytes]
		if err := x.ReadRaw(raw[k:]); err != nil {
			return nil, err
		}
	}
	if err := x.ReadRaw(nil); err != io.EOF {
		return nil, err
	}
	return &IDX{Header: h, Raw: raw}, nil
}

// Values returns the file's elements converted to E (as a Go conversion
// does) in a tensor whose shape is the file's dimensions.
func Values[E sample.Number](x *IDX) sample.Dense[E] {
	shape := append([]int(nil), x.Dims...)
	d := sample.NewDense[E](shape, nil)
	decode(x.DType, x.Raw, d.Data)
	return d
}

// decode converts big-endian elements of type t in raw into dst.
func decode[E sample.Number](t sample.DType, raw []byte, dst []E) {
	be := binary.BigEndian
	switch t {
	case sample.Uint8:
		for i, b := range raw {
			dst[i] = E(b)
		}
	case sample.Int8:
		for i, b := range raw {
			dst[i] = E(int8(b))
		}
	case sample.Int16:
		for i := range len(raw) / 2 {
			dst[i] = E(int16(be.Uint16(raw[2*i:])))
		}
	case sample.Int32:
		for i := range len(raw) / 4 {
			dst[i] = E(int32(be.Uint32(raw[4*i:])))
		}
	case sample.Float32:
		for i := range len(raw) / 4 {
			dst[i] = E(math.Float32frombits(be.Uint32(raw[4*i:])))
		}
	case sample.Float64:
		for i := range len(raw) / 8 {
			dst[i] = E(math.Float64frombits(be.Uint64(raw[8*i:])))
		}
	default:
		panic(fmt.Sprintf("mnist: no IDX element type %v", t))
	}
}
