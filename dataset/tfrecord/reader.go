package tfrecord

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
)

// readChunk bounds how much memory one read may claim ahead of the data that
// actually arrives when the size of the input is not known (a gzip stream),
// so that a corrupt length cannot allocate the maximum for a small file.
const readChunk = 64 << 10

// compression says how the input of a reader is compressed: detected
// when a pass starts (see isGzip), or known when it resumes.
type compression int

const (
	detect compression = iota
	plain
	gzipped
)

// isGzip tells from the first bytes of an input (12 of them, or all of a
// shorter input) whether it is a gzip stream: it starts with the gzip
// magic (1f 8b 08) and is not a plain TFRecord whose first record's length
// starts with those bytes, which the masked CRC of the length after them
// tells (a gzip header's bytes 8 to 11 match it once in 2^32).
func isGzip(head []byte) bool {
	if len(head) < 3 || head[0] != 0x1f || head[1] != 0x8b || head[2] != 8 {
		return false
	}
	return len(head) < headerSize || binary.LittleEndian.Uint32(head[8:]) != MaskedCRC(head[:8])
}

// reader reads records one after another from a stream, in the manner of
// encoding/csv's Reader: Next returns the next record's data and io.EOF
// after the last one.
// It detects gzip input (see isGzip) and accepts records up to 256 MiB;
// Open's options set the limit.
type reader struct {
	name  string // names the input in errors, usually its file path
	reuse bool   // Next returns a slice that the next call overwrites
	// maxRecord is the largest record accepted; a longer length is an
	// error before anything is allocated for it. Zero means
	// defaultMaxRecordBytes.
	maxRecord int64
	// size, when positive, is the size in bytes of a plain (uncompressed)
	// input, such as a file's size: a length that goes past it is an error
	// before anything is allocated for it. Without it (and for gzip input)
	// memory grows only as the bytes of a record arrive.
	size        int64
	compression compression // how the input is compressed (default: detect)

	br      *bufio.Reader
	started bool
	gz      bool
	pos     int64 // bytes consumed from the (decompressed) stream
	off     int64 // start of the record last returned, -1 before the first
	index   int64 // index of the next record
	buf     []byte
	foot    [footerSize]byte
	err     error // sticky: once set, Next returns it
}

// newReader returns a reader of r (which it buffers: see
// streamfile.Buffered); name names the input in errors, usually its path.
func newReader(r io.Reader, name string) *reader {
	return &reader{name: name, br: streamfile.Buffered(r), off: -1}
}

// Next returns the data of the next record. At the end of the input it
// returns io.EOF; malformed input gives a *tensorfeed.Error that wraps ErrFormat.
//
// A record whose data does not match its CRC gives a *tensorfeed.Error that
// wraps ErrDataChecksum; the reader stays in step and the next call reads
// the following record. After any other error every later call returns the
// same error: once a length or its CRC is wrong, nothing after it can be
// trusted.
//
// The returned slice belongs to the caller.
func (r *reader) Next() ([]byte, error) {
	if !r.started {
		r.started = true
		r.err = r.start() // a bad gzip header: sticky like any framing error
	}
	if r.err != nil {
		return nil, r.err
	}
	rec, skippable, err := r.next()
	if err != nil {
		if !skippable {
			r.err = err
		}
		return nil, err
	}
	return rec, nil
}

// Offset returns the byte offset of the header of the record that Next
// returned (or failed on with ErrDataChecksum) last, or -1 before the first.
// For gzip input it counts bytes of the decompressed stream.
func (r *reader) Offset() int64 { return r.off }

// Index returns the index, from 0, of the record that Next returned (or
// failed on with ErrDataChecksum) last, or -1 before the first.
func (r *reader) Index() int64 { return r.index - 1 }

// Gzip reports whether the input is read as gzip; it is known after the
// first call to Next.
func (r *reader) Gzip() bool { return r.gz }

func (r *reader) start() error {
	gz := r.compression == gzipped
	if r.compression == detect {
		head, err := r.br.Peek(headerSize)
		if err != nil && err != io.EOF {
			return r.ioError(0, err)
		}
		gz = isGzip(head)
	}
	if !gz {
		return nil
	}
	zr, err := gzip.NewReader(r.br)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return r.readError(0, err)
	}
	r.br = bufio.NewReaderSize(zr, 64<<10)
	r.gz = true
	return nil
}

func (r *reader) maxBytes() uint64 {
	if r.maxRecord > 0 {
		return uint64(min(r.maxRecord, math.MaxInt-headerSize-footerSize))
	}
	return defaultMaxRecordBytes
}

// next reads one record. skippable is true for a data checksum mismatch,
// after which the reader is still in step.
func (r *reader) next() (data []byte, skippable bool, err error) {
	start := r.pos
	hdr, err := r.br.Peek(headerSize)
	if len(hdr) < headerSize {
		switch {
		case err != io.EOF:
			return nil, false, r.readError(start, err)
		case len(hdr) == 0:
			return nil, false, io.EOF
		default:
			return nil, false, r.formatError(start, io.ErrUnexpectedEOF,
				fmt.Sprintf("truncated header: %d of %d bytes", len(hdr), headerSize))
		}
	}
	n := binary.LittleEndian.Uint64(hdr)
	if stored, want := binary.LittleEndian.Uint32(hdr[8:]), MaskedCRC(hdr[:8]); stored != want {
		return nil, false, r.formatError(start, nil,
			fmt.Sprintf("length checksum mismatch: stored 0x%08x, computed 0x%08x", stored, want))
	}
	if m := r.maxBytes(); n > m {
		return nil, false, r.formatError(start, ErrTooLarge,
			fmt.Sprintf("length %d larger than the maximum %d (MaxRecordBytes)", n, m))
	}
	if r.size > 0 && !r.gz {
		left := max(r.size-start-headerSize, 0)
		if n+footerSize > uint64(left) {
			return nil, false, r.formatError(start, io.ErrUnexpectedEOF,
				fmt.Sprintf("length %d goes past the end of the input: the record needs %d bytes after its header (the data and a %d-byte CRC), %d are left",
					n, n+footerSize, footerSize, left))
		}
	}
	_, _ = r.br.Discard(headerSize) // cannot fail: Peek returned the bytes
	r.pos += headerSize
	var buf []byte
	if r.reuse {
		buf = r.buf[:0]
	}
	buf, err = r.readData(buf, int(n), start)
	if err != nil {
		return nil, false, err
	}
	if r.reuse {
		r.buf = buf
	}
	m, err := io.ReadFull(r.br, r.foot[:])
	r.pos += int64(m)
	if err != nil {
		return nil, false, r.truncated(err, start, fmt.Sprintf("truncated data checksum: %d of %d bytes", m, footerSize))
	}
	r.off = start
	r.index++
	if stored, want := binary.LittleEndian.Uint32(r.foot[:]), mask(crc32.Checksum(buf, castagnoli)); stored != want {
		return nil, true, formatError(r.name, start, r.index-1, ErrDataChecksum,
			fmt.Sprintf("data checksum mismatch: stored 0x%08x, computed 0x%08x", stored, want))
	}
	if buf == nil {
		buf = []byte{}
	}
	return buf, false, nil
}

// readData appends n data bytes to buf.
func (r *reader) readData(buf []byte, n int, start int64) ([]byte, error) {
	chunk := readChunk
	if r.size > 0 && !r.gz {
		chunk = 0 // n was checked against the bytes present
	}
	before := len(buf)
	buf, err := streamfile.AppendN(r.br, buf, n, chunk)
	got := len(buf) - before
	r.pos += int64(got)
	if err != nil {
		return nil, r.truncated(err, start,
			fmt.Sprintf("length %d goes past the end of the input: %d data bytes present", n, got))
	}
	return buf, nil
}

func (r *reader) truncated(err error, start int64, msg string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.formatError(start, io.ErrUnexpectedEOF, msg)
	}
	return r.readError(start, err)
}

// readError turns an error of the underlying reader into the reader's error:
// a damaged gzip stream is bad data, anything else an I/O error.
func (r *reader) readError(at int64, err error) error {
	var corrupt flate.CorruptInputError
	if err == io.ErrUnexpectedEOF || errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) ||
		errors.As(err, &corrupt) {
		return r.formatError(at, err, "gzip stream: "+err.Error())
	}
	return r.ioError(at, err)
}

func (r *reader) formatError(at int64, cause error, msg string) error {
	return formatError(r.name, at, r.index, cause, msg)
}

func (r *reader) ioError(at int64, err error) error {
	return &tensorfeed.Error{Path: r.name, Offset: at, Record: r.index, Err: fmt.Errorf("tfrecord: %w", err)}
}
