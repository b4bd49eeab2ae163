package idx

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
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
	t, _ := lo.FindKey(idxTypes, h.DType)
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

// Reader reads an IDX file one record at a time, as encoding/csv's Reader
// reads one record at a time. Its methods return io.EOF after the last
// record, once it has checked that nothing follows it. A Reader does not
// close the underlying reader.
//
// A Reader never trusts its header for memory: it refuses headers that
// declare more than its maximums ([MaxRecordBytes], [MaxFileBytes]), and
// what it allocates itself is a fixed-size buffer, whatever the header
// says. The caller's buffers for [Reader.ReadRaw] and [Read] hold one
// record, which the maximum record size bounds.
type Reader struct {
	name     string
	cfg      config
	hdr      Header
	br       *bufio.Reader
	gz       bool
	sized    bool  // the input's size is known and holds exactly the declared data
	off      int64 // offset of the next byte in the uncompressed stream
	rec      int   // index of the next record
	recBytes int
	err      error // sticky error, io.EOF at the end
	scratch  []byte
}

// bufSize is the size of the buffer between the reader and the decoder.
const bufSize = 1 << 16

// NewReader reads an IDX header from r and returns a reader positioned at
// the first record. A gzip stream is recognised by its first two bytes and
// decompressed. name is used in errors (usually the file's path). The header
// is checked against the options' limits, and against the input's size
// when [InputSize] gives it, before the reader is returned.
func NewReader(r io.Reader, name string, opts ...Option) (*Reader, error) {
	x, err := newReader(r, name, opts)
	if err != nil {
		return nil, err
	}
	return x, nil
}

// newReader is NewReader, but returns the reader also with an error,
// holding what it read: the header, when the error is about what the
// header declares.
func newReader(r io.Reader, name string, opts []Option) (*Reader, error) {
	br := bufio.NewReaderSize(r, bufSize)
	x := &Reader{name: name, cfg: newConfig(opts), br: br}
	if isGzip(br) {
		x.gz = true
		zr, err := gzip.NewReader(br)
		if err != nil {
			x.err = x.fail(0, -1, "bad gzip header", err)
			return x, x.err
		}
		zr.Multistream(true)
		x.br = bufio.NewReaderSize(zr, bufSize)
	}
	x.err = x.readHeader()
	return x, x.err
}

// isGzip reports whether br starts with the gzip magic number.
func isGzip(br *bufio.Reader) bool {
	b, _ := br.Peek(2)
	return len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b
}

// readHeader reads and checks the header. Every size is computed with
// saturating arithmetic, so that no product of the declared dimensions can
// overflow, and compared with the limits before anything depends on it.
func (x *Reader) readHeader() error {
	var magic [4]byte
	n, err := io.ReadFull(x.br, magic[:])
	x.off += int64(n)
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return x.fail(0, -1, "empty file", io.ErrUnexpectedEOF)
	case err != nil:
		return x.readErr(err, -1, "the header")
	}
	if magic[0] != 0 || magic[1] != 0 {
		return x.fail(0, -1, fmt.Sprintf("bad magic %02x %02x %02x %02x (want 00 00 TT DD)", magic[0], magic[1], magic[2], magic[3]), nil)
	}
	dt, ok := idxTypes[magic[2]]
	if !ok {
		return x.fail(2, -1, fmt.Sprintf("unknown element type 0x%02x", magic[2]), nil)
	}
	nd := int(magic[3])
	if nd > maxDims {
		return x.fail(3, -1, fmt.Sprintf("%d dimensions (at most %d supported)", nd, maxDims), nil)
	}
	maxRec, maxFile := x.cfg.maxRecord, x.cfg.maxFile
	dims := make([]int, nd)
	elem := int64(dt.Size())
	total, rec := elem, elem // bytes of all data and of one record, saturated
	totalOver, recOver := int64(-1), int64(-1)
	zeroAt := int64(-1) // offset of the first zero dimension after the first
	zeroDim := 0
	var b [4]byte
	for i := range dims {
		start := x.off
		n, err := io.ReadFull(x.br, b[:])
		x.off += int64(n)
		if err != nil {
			return x.readErr(err, -1, fmt.Sprintf("the size of dimension %d", i))
		}
		d := int64(binary.BigEndian.Uint32(b[:]))
		if d > math.MaxInt {
			return x.fail(start, -1, fmt.Sprintf("dimension %d of %d does not fit an int", i, d), ErrTooLarge)
		}
		dims[i] = int(d)
		if total = mulSat(total, d, maxFile); total > maxFile && totalOver < 0 {
			totalOver = start
		}
		if i == 0 {
			continue
		}
		if rec = mulSat(rec, d, maxRec); rec > maxRec && recOver < 0 {
			recOver = start
		}
		if d == 0 && zeroAt < 0 {
			zeroAt, zeroDim = start, i
		}
	}
	x.hdr = Header{DType: dt, Dims: dims}
	count := x.hdr.Records()
	switch {
	case rec > maxRec:
		return x.fail(recOver, -1, fmt.Sprintf("dimensions %v declare records of more than %d bytes (MaxRecordBytes)", dims, maxRec), ErrTooLarge)
	case total > maxFile:
		return x.fail(totalOver, -1, fmt.Sprintf("dimensions %v declare more than %d bytes of data (MaxFileBytes)", dims, maxFile), ErrTooLarge)
	case rec == 0 && count > 0:
		// Records of no bytes carry nothing, and their count cannot
		// be checked against the data: 16 bytes could declare four
		// billion of them.
		return x.fail(zeroAt, -1, fmt.Sprintf("dimension %d is 0, so none of the %d records holds data", zeroDim, count), nil)
	}
	x.recBytes = int(rec)
	if x.gz || x.cfg.size < 0 {
		return nil
	}
	// A plain stream of known size: the data the header declares must be
	// exactly what is there, so nothing is ever read or allocated on the
	// header's word alone.
	have, want := x.cfg.size, x.off+total
	switch {
	case have < want:
		r := int(max(have-x.off, 0) / rec)
		return x.fail(have, r, fmt.Sprintf("file ends in record %d of %d (the header declares %d bytes of data, %d are there)", r, count, total, max(have-x.off, 0)), io.ErrUnexpectedEOF)
	case have > want:
		return x.fail(want, -1, fmt.Sprintf("%d bytes after the last record", have-want), nil)
	}
	x.sized = true
	return nil
}

// mulSat returns a*b, or limit+1 when that is larger than limit: once a
// product passes its limit it stays above it, whatever it is multiplied by
// next, except 0.
func mulSat(a, b, limit int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > limit/b {
		return satLimit(limit)
	}
	return a * b
}

func satLimit(limit int64) int64 {
	if limit == math.MaxInt64 {
		return limit
	}
	return limit + 1
}

// fail returns the error about the file at offset off, about record rec
// (-1 for none).
func (x *Reader) fail(off int64, rec int, msg string, err error) error {
	return Fail(x.name, off, rec, msg, err)
}

// Fail returns the positioned error of bad data in the IDX file name, at
// byte offset off of the uncompressed stream and about record rec (-1 for
// none): a *tensorfeed.Error whose Err wraps [ErrFormat] and, when it is
// not nil, the underlying cause err (io.ErrUnexpectedEOF, a gzip error,
// [ErrTooLarge]), whose text ends the message.
func Fail(name string, off int64, rec int, msg string, err error) *tensorfeed.Error {
	if err != nil {
		msg += ": " + err.Error()
	}
	return &tensorfeed.Error{Path: name, Offset: off, Record: int64(rec), Err: cause.New(ErrFormat, err, msg)}
}

// readErr turns an error from the stream into a positioned error at the current
// offset. A short read is a truncated file; gzip and flate errors are
// corrupt or cut streams.
func (x *Reader) readErr(err error, rec int, what string) error {
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
	return x.fail(x.off, rec, msg, err)
}

// recordErr is readErr for record rec.
func (x *Reader) recordErr(err error, rec int) error {
	return x.readErr(err, rec, fmt.Sprintf("record %d of %d", rec, x.hdr.Records()))
}

// Header returns the file's header.
func (x *Reader) Header() Header { return x.hdr }

// Name returns the name given to NewReader.
func (x *Reader) Name() string { return x.name }

// Gzipped reports whether the file is gzip-compressed.
func (x *Reader) Gzipped() bool { return x.gz }

// Offset returns the offset of the next record in the uncompressed stream.
func (x *Reader) Offset() int64 { return x.off }

// RecordBytes returns the size of one record in bytes.
func (x *Reader) RecordBytes() int { return x.recBytes }

// Sized reports whether the input's size was given ([InputSize]) and holds
// exactly the data the header declares: a reader of the whole file may
// then allocate it up front.
func (x *Reader) Sized() bool { return x.sized }

// next returns the sticky error, or io.EOF (once the end is checked) when
// every record has been read, or nil when a record is to be read.
func (x *Reader) next() error {
	if x.err == nil && x.rec == x.hdr.Records() {
		x.err = x.checkEnd()
	}
	return x.err
}

// fill reads len(b) bytes of the current record.
func (x *Reader) fill(b []byte) error {
	n, err := io.ReadFull(x.br, b)
	x.off += int64(n)
	if err != nil {
		x.err = x.recordErr(err, x.rec)
	}
	return x.err
}

// ReadRaw reads the next record's bytes (big-endian elements) into dst,
// which must hold at least RecordBytes bytes. It returns io.EOF after the
// last record, or an error wrapping [ErrFormat] when the file is truncated,
// corrupt, or has data after its last record. Errors are sticky.
func (x *Reader) ReadRaw(dst []byte) error {
	if err := x.next(); err != nil {
		return err
	}
	if len(dst) < x.recBytes {
		panic(fmt.Sprintf("idx: ReadRaw: buffer of %d bytes for records of %d", len(dst), x.recBytes))
	}
	if err := x.fill(dst[:x.recBytes]); err != nil {
		return err
	}
	x.rec++
	return nil
}

// Skip skips the next n records (fewer when fewer are left). Skipping a
// gzipped file still decompresses what it skips.
func (x *Reader) Skip(n int) error {
	if x.err != nil {
		return x.err
	}
	n = min(n, x.hdr.Records()-x.rec)
	if n <= 0 {
		return nil
	}
	got, err := x.br.Discard(n * x.recBytes)
	x.off += int64(got)
	if err != nil {
		x.err = x.recordErr(err, x.rec+got/x.recBytes)
		return x.err
	}
	x.rec += n
	return nil
}

// checkEnd reports io.EOF when the stream ends right after the last record,
// and an error when more data follows (or when the end cannot be read: a
// gzip stream verifies its checksum only there). It reads at most one
// buffer of what follows: a stream with a long tail is refused without
// decompressing the tail.
func (x *Reader) checkEnd() error {
	_, err := x.br.Peek(1)
	switch {
	case errors.Is(err, io.EOF):
		return io.EOF
	case err != nil:
		msg := "cannot read the end of the file"
		if x.gz {
			msg += " (gzip stream)"
		}
		return x.fail(x.off, -1, msg, err)
	}
	return x.fail(x.off, -1, fmt.Sprintf("%d bytes or more after the last record", x.br.Buffered()), nil)
}

// Read decodes the next record into dst, converting each element to E as a
// Go conversion does. dst must hold at least Header().RecordElems()
// elements. It returns io.EOF after the last record. Read decodes through a
// buffer of fixed size, so a large record costs dst and nothing more; when
// it fails in the middle of a record, dst holds part of it.
func Read[E sample.Number](x *Reader, dst []E) error {
	if n := x.hdr.RecordElems(); len(dst) < n {
		panic(fmt.Sprintf("idx: Read: buffer of %d elements for records of %d", len(dst), n))
	}
	if err := x.next(); err != nil {
		return err
	}
	if x.scratch == nil {
		// A multiple of every element size.
		x.scratch = make([]byte, min(x.recBytes, bufSize))
	}
	size := x.hdr.DType.Size()
	for done := 0; done < x.recBytes; {
		chunk := x.scratch[:min(len(x.scratch), x.recBytes-done)]
		if err := x.fill(chunk); err != nil {
			return err
		}
		decode(x.hdr.DType, chunk, dst[done/size:])
		done += len(chunk)
	}
	x.rec++
	return nil
}

// File is a whole IDX file in memory.
type File struct {
	Header
	// Raw holds the elements as stored: big-endian, row-major,
	// Elems()*DType.Size() bytes.
	Raw []byte
}

// Elems returns the number of elements in the file.
func (x *File) Elems() int { return sample.Elems(x.Dims) }

// ReadFile reads a whole IDX file, gzipped or not. It checks the header
// against the file's size, so a plain file costs at most its own size in
// memory; a gzipped one costs what it decompresses to, which
// [MaxFileBytes] bounds. path may be an s3:// or http(s):// URL, read
// through package storage with its defaults (the endpoint and credentials
// of the AWS_* environment variables; see [storage.Open]); its size is
// the object's.
func ReadFile(path string, opts ...Option) (*File, error) {
	f, err := Open(context.Background(), path, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path, WithSize(f.Size, opts)...)
}

// WithSize adds the size of a file (-1: unknown) to opts, so that the
// header is checked against it.
func WithSize(size int64, opts []Option) []Option {
	if size < 0 {
		return opts
	}
	return append(slices.Clip(opts), InputSize(size))
}

// GrowStep is how much Decode allocates before data arrives when it
// cannot know how much is there.
const GrowStep = 1 << 20

// Decode reads a whole IDX stream, gzipped or not; name is used in
// errors. Memory grows with the data that actually arrives, never with what
// the header claims: up front it allocates the declared size only when
// [InputSize] has shown that the data is there, else at most 1 MiB, and it
// grows the buffer as the stream delivers bytes.
func Decode(r io.Reader, name string, opts ...Option) (*File, error) {
	x, err := NewReader(r, name, opts...)
	if err != nil {
		return nil, err
	}
	h := x.Header()
	n := h.Records()
	total := n * x.recBytes // at most the MaxFileBytes the header passed
	first := total
	if !x.sized {
		first = min(total, GrowStep)
	}
	raw := make([]byte, 0, first)
	for len(raw) < total {
		if len(raw) == cap(raw) {
			// Double what has arrived, up to the declared size.
			raw = slices.Grow(raw, min(total-len(raw), len(raw)))
		}
		k, err := io.ReadFull(x.br, raw[len(raw):min(cap(raw), total)])
		raw = raw[:len(raw)+k]
		x.off += int64(k)
		if err != nil {
			x.err = x.recordErr(err, len(raw)/x.recBytes)
			return nil, x.err
		}
	}
	x.rec = n
	if err := x.ReadRaw(nil); err != io.EOF {
		return nil, err
	}
	return &File{Header: h, Raw: raw}, nil
}

// Values returns the file's elements converted to E (as a Go conversion
// does) in a tensor whose shape is the file's dimensions.
func Values[E sample.Number](x *File) sample.Dense[E] {
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
		panic(fmt.Sprintf("idx: no element type %v", t))
	}
}
