package recordio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
)

// readChunk bounds how much memory one read may claim ahead of the data that
// actually arrives, so that a corrupt length word cannot allocate 512 MiB for
// a file of a few bytes.
const readChunk = 1 << 20

// Reader reads records one after another from a stream, in the manner of
// encoding/csv's Reader: Next returns the next record's payload, with the
// parts of a split record joined again, and io.EOF after the last one.
//
// Every record gets its own slice, which the caller owns; a pass of Open
// with ReuseBuffer shares one.
type Reader struct {
	name  string // names the input in errors, usually its file path
	reuse bool   // Next returns a slice that the next call overwrites
	// get, when set, gives the buffer of a record's first part (see
	// Buffers).
	get func(n int) []byte
	// base is the offset in its file at which the input starts, for a
	// reader that begins in the middle of a file (a shard). Offset,
	// inputOffset and errors count from it.
	base int64

	br  *bufio.Reader
	pos int64 // bytes consumed from br
	off int64 // start of the record last returned, relative to pos 0
	n   int64 // records returned
	buf []byte
	err error // sticky: once set, Next returns it
}

// NewReader returns a Reader that reads records from r; name names the
// input in errors, usually its path. It buffers r (unless r already is a
// *bufio.Reader), so r must not be read otherwise afterwards.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, br: streamfile.Buffered(r), off: -1}
}

// Next returns the payload of the next record. At the end of the input it
// returns io.EOF; a malformed input gives a *tensorfeed.Error whose
// cause wraps ErrFormat. After an error, every later call returns the same error.
//
// The returned slice belongs to the caller.
func (r *Reader) Next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return rec, nil
}

// Offset returns the byte offset of the first part header of the record that
// Next returned last, or -1 before the first record.
func (r *Reader) Offset() int64 {
	if r.off < 0 {
		return -1
	}
	return r.base + r.off
}

// inputOffset returns the byte offset of the reader's position in its input:
// after a successful Next, where the next record starts.
func (r *Reader) inputOffset() int64 { return r.base + r.pos }

func (r *Reader) next() ([]byte, error) {
	start := r.pos
	var buf []byte
	if r.reuse {
		buf = r.buf[:0]
	}
	first := true
	for {
		part := r.pos
		hdr, err := r.br.Peek(headerSize)
		if len(hdr) < headerSize {
			switch {
			case err != io.EOF:
				return nil, r.ioError(part, err)
			case len(hdr) == 0 && first:
				return nil, io.EOF
			case len(hdr) == 0:
				return nil, r.formatError(part, start, io.ErrUnexpectedEOF,
					"input ends inside a split record: its last part is missing")
			default:
				return nil, r.formatError(part, start, io.ErrUnexpectedEOF,
					fmt.Sprintf("truncated part header: %d of %d bytes", len(hdr), headerSize))
			}
		}
		if m := binary.LittleEndian.Uint32(hdr); m != Magic {
			return nil, r.formatError(part, start, nil, fmt.Sprintf("bad magic 0x%08x, want 0x%08x", m, Magic))
		}
		cflag, n := decodeLRec(binary.LittleEndian.Uint32(hdr[4:]))
		if msg := checkFlag(cflag, first); msg != "" {
			return nil, r.formatError(part, start, nil, msg)
		}
		if len(buf)+n > MaxRecordSize {
			return nil, r.formatError(part, start, nil,
				fmt.Sprintf("record longer than %d bytes", MaxRecordSize))
		}
		_, _ = r.br.Discard(headerSize) // cannot fail: Peek returned the bytes
		r.pos += headerSize
		if first && r.get != nil && n <= readChunk {
			buf = r.get(n)[:0]
		}
		buf, err = r.readPart(buf, n, part, start)
		if err != nil {
			return nil, err
		}
		if cflag == flagWhole || cflag == flagLast {
			break
		}
		buf = append(buf, magicBytes...)
		first = false
	}
	if r.reuse {
		r.buf = buf
	}
	if buf == nil {
		buf = []byte{}
	}
	r.off = start
	r.n++
	return buf, nil
}

// checkFlag reports what is wrong with a continuation flag at this place in a
// record, or "" when it is fine.
func checkFlag(cflag uint32, first bool) string {
	switch {
	case cflag > flagLast:
		return fmt.Sprintf("bad continuation flag %d", cflag)
	case first && cflag >= flagMiddle:
		return fmt.Sprintf("continuation part (flag %d) without a first part", cflag)
	case !first && cflag <= flagFirst:
		return fmt.Sprintf("split record has no last part: a new record (flag %d) starts here", cflag)
	}
	return ""
}

// readPart appends n data bytes to buf and skips the padding after them.
func (r *Reader) readPart(buf []byte, n int, part, start int64) ([]byte, error) {
	pad := align4(n) - n
	before := len(buf)
	buf, err := streamfile.AppendN(r.br, buf, n, readChunk)
	got := len(buf) - before
	r.pos += int64(got)
	if err != nil {
		return nil, r.truncated(err, part, start, n, got)
	}
	if pad > 0 {
		m, err := r.br.Discard(pad)
		r.pos += int64(m)
		if err != nil {
			return nil, r.truncated(err, part, start, n, got+m)
		}
	}
	return buf, nil
}

func (r *Reader) truncated(err error, part, start int64, n, got int) error {
	if err != io.EOF && err != io.ErrUnexpectedEOF {
		return r.ioError(r.pos, err)
	}
	return r.formatError(part, start, io.ErrUnexpectedEOF,
		fmt.Sprintf("part length %d (padded %d) goes past the end of the input: %d bytes left",
			n, align4(n), got))
}

func (r *Reader) formatError(part, start int64, cause error, msg string) error {
	return formatError(r.name, r.base+start, r.record(), cause, partMsg(r.base+part, r.base+start, msg))
}

// record returns the index of the record being read, or -1 when the input
// does not start at the start of its file.
func (r *Reader) record() int64 {
	if r.base != 0 {
		return -1
	}
	return r.n
}

func (r *Reader) ioError(at int64, err error) error {
	return &tensorfeed.Error{Path: r.name, Offset: r.base + at, Record: r.record(),
		Err: fmt.Errorf("recordio: %w", err)}
}
