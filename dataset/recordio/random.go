package recordio

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/tensorfeed/tensorfeed"
)

// RandomReader reads records at known offsets of an io.ReaderAt, for example
// the offsets of an .idx file. It keeps no state between calls, so it is safe
// for concurrent use when the ReaderAt is (an *os.File and a storage.File
// are).
//
// With an index, a record is read with one ReadAt call: the index tells where
// the next record begins. Without one, each part takes two.
type RandomReader struct {
	name string // names the input in errors, usually its file path

	r    io.ReaderAt
	size int64
	idx  *Index
}

// NewRandomReader returns a reader over r, which holds size bytes; name
// names it in errors, usually its path. idx, the file's index, may be nil:
// it only makes AppendAt read a record with one ReadAt. For a
// random-access dataset of records by index, use OpenIndexed.
func NewRandomReader(name string, r io.ReaderAt, size int64, idx *Index) *RandomReader {
	return &RandomReader{name: name, r: r, size: size, idx: idx}
}

// AppendAt appends the payload of the record at offset off to dst and
// returns the extended slice. With a large enough dst it does not allocate.
// An offset that is not a record start gives a *tensorfeed.Error.
func (rr *RandomReader) AppendAt(dst []byte, off int64) ([]byte, error) {
	span := int64(0)
	if rr.idx != nil {
		end := rr.idx.next(off)
		if end < 0 {
			end = rr.size
		}
		span = end - off
	}
	p := &parser{rr: rr, buf: dst, base: len(dst), w: len(dst), rd: len(dst), end: len(dst), fpos: off}
	if span > headerSize && span <= MaxRecordSize+headerSize {
		p.load(int(span)) // a short read here is reported by parse
	}
	return p.parse(off)
}

// parser joins the parts of one record in place: the file bytes are read
// into buf[rd:end] and the payload is compacted into buf[base:w]. The payload
// is never longer than the bytes it came from, so w never passes rd.
type parser struct {
	rr          *RandomReader
	buf         []byte
	base, w, rd int
	end         int
	fpos        int64 // file offset of buf[end]
	short       bool  // the input ended during a load
	shortErr    error
}

// load reads up to n more bytes after buf[end], in bounded chunks.
func (p *parser) load(n int) {
	for n > 0 && !p.short {
		c := min(n, readChunk)
		if cap(p.buf)-p.end < c {
			p.buf = slices.Grow(p.buf[:p.end], min(max(p.end, c), n))
		}
		p.buf = p.buf[:p.end+c]
		m, err := p.rr.r.ReadAt(p.buf[p.end:p.end+c], p.fpos)
		p.end += m
		p.fpos += int64(m)
		n -= m
		if m < c {
			p.short = true
			p.shortErr = err
		}
	}
	p.buf = p.buf[:p.end]
}

// need makes sure n unparsed bytes are loaded.
func (p *parser) need(n int) bool {
	if have := p.end - p.rd; have < n {
		p.load(n - have)
	}
	return p.end-p.rd >= n
}

func (p *parser) parse(start int64) ([]byte, error) {
	first := true
	partOff := start
	for {
		if !p.need(headerSize) {
			if first && p.end == p.rd && start >= p.rr.size {
				return nil, p.fail(partOff, start, io.ErrUnexpectedEOF,
					fmt.Sprintf("offset is at or past the end of the input (%d bytes)", p.rr.size))
			}
			return nil, p.fail(partOff, start, io.ErrUnexpectedEOF,
				fmt.Sprintf("truncated part header: %d of %d bytes", p.end-p.rd, headerSize))
		}
		hdr := p.buf[p.rd : p.rd+headerSize]
		if m := binary.LittleEndian.Uint32(hdr); m != Magic {
			return nil, p.fail(partOff, start, nil, fmt.Sprintf("bad magic 0x%08x, want 0x%08x", m, Magic))
		}
		cflag, n := decodeLRec(binary.LittleEndian.Uint32(hdr[4:]))
		if msg := checkFlag(cflag, first); msg != "" {
			if first {
				msg = "not a record start: " + msg
			}
			return nil, p.fail(partOff, start, nil, msg)
		}
		if p.w-p.base+n > MaxRecordSize {
			return nil, p.fail(partOff, start, nil, fmt.Sprintf("record longer than %d bytes", MaxRecordSize))
		}
		padded := align4(n)
		if !p.need(headerSize + padded) {
			return nil, p.fail(partOff, start, io.ErrUnexpectedEOF,
				fmt.Sprintf("part length %d (padded %d) goes past the end of the input: %d bytes left",
					n, padded, p.end-p.rd-headerSize))
		}
		p.w += copy(p.buf[p.w:], p.buf[p.rd+headerSize:p.rd+headerSize+n])
		p.rd += headerSize + padded
		partOff += int64(headerSize + padded)
		if cflag == flagWhole || cflag == flagLast {
			return p.buf[:p.w], nil
		}
		p.w += copy(p.buf[p.w:], magicBytes)
		first = false
	}
}

func (p *parser) fail(part, start int64, cause error, msg string) error {
	if p.short && p.shortErr != nil && p.shortErr != io.EOF {
		return &tensorfeed.Error{Path: p.rr.name, Offset: part, Record: -1, Err: fmt.Errorf("recordio: %w", p.shortErr)}
	}
	return formatError(p.rr.name, start, -1, cause, partMsg(part, start, msg))
}
