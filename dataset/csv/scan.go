package csv

import (
	"bufio"
	"bytes"
	"context"
	stdcsv "encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/storage"
)

// The default limits on the bytes of a row and of a field. Rows of real
// numeric data sets are far shorter (MNIST as text is about 2 KiB a row,
// 20,000 gene expression values about 200 KiB), and a field is a number or
// a class name, or a text column that the reader does not use; the limits
// are there so that a file that is not CSV, or a row that lost its line
// breaks, costs bounded memory. MaxLineBytes and MaxFieldBytes change them.
const (
	defaultMaxLineBytes  = 1 << 20
	defaultMaxFieldBytes = 256 << 10
)

// maxLimit bounds MaxLineBytes and MaxFieldBytes so that offsets into a
// row fit the int32s the scanner keeps per field.
const maxLimit = 1 << 30

// bufSize is the size of the buffer a file is read through. Lines shorter
// than it are parsed where they lie in it, without a copy.
const bufSize = 1 << 16

// file is one open CSV file and the record last read from it. It splits
// records as encoding/csv does (RFC 4180, strict quotes, comment and empty
// lines skipped, \r\n read as \n), but holds at most maxLine bytes of a
// record and maxField bytes of a field, and keeps 8 bytes per field
// besides the field's bytes, so that a pass's memory is bounded whatever
// the file holds.
type file struct {
	path     string
	f        storage.File
	r        *bufio.Reader
	comma    rune
	commaLen int
	comment  rune
	maxLine  int
	maxField int

	off   int64  // bytes read so far
	line  int    // lines read so far
	rows  int    // records read, good or bad
	bom   bool   // the first line, which may start with a byte order mark, is still to be read
	col0  int    // column of the first byte of the line last read (4 after a BOM)
	raw   []byte // the line last read, when it is longer than r's buffer
	fatal error  // an error after which the file cannot be read on

	// The record last read.
	recLine int     // line of its first field
	buf     []byte  // its fields, unquoted, one byte apart (as in a line that splitLine splits)
	ends    []int32 // ends[i] is the end of field i in buf; field i+1 starts at ends[i]+1
	cols    []int32 // cols[i] is the 1-based byte column where field i starts
	moves   []move  // the fields that start on later lines than recLine
	str     string  // buf as a string, or the line splitLine split: fields are sliced from it
	fstart  int     // start of the field being read in buf
}

// move says that field and the fields after it start at line: quoted
// fields that hold line breaks make a record span lines.
type move struct{ field, line int }

// open opens the file at path. With head, the file is read through ReadAt
// (one range request per buffer of a remote file, no read-ahead) until
// seek moves it: a resumed pass reads only the head for the layout before
// it seeks.
func (c *config) open(ctx context.Context, path string, head bool) (*file, error) {
	f, err := storage.OpenFile(ctx, path, c.storage...)
	if err != nil {
		return nil, err
	}
	var rd io.Reader = f
	if head {
		rd = io.NewSectionReader(f, 0, math.MaxInt64)
	}
	return &file{
		path: path, f: f, r: bufio.NewReaderSize(rd, bufSize),
		comma: c.comma, commaLen: utf8.RuneLen(c.comma), comment: c.comment,
		maxLine: c.maxLine, maxField: c.maxField, bom: true,
	}, nil
}

// seek moves the file to byte off, where a record starts after line lines
// and rows records.
func (f *file) seek(off int64, line, rows int) error {
	if _, err := f.f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("csv: %s: %w", f.path, err)
	}
	f.r.Reset(f.f)
	f.off, f.line, f.rows, f.bom = off, line, rows, false
	return nil
}

var byteOrderMark = []byte("\ufeff")

// readLine reads the next line with its \n, if any, and counts it. It
// fails with errLineTooLong, without reading the line whole, when the
// line's bytes (its \n or \r\n aside) are more than budget. It returns
// io.EOF only when no byte is left.
func (f *file) readLine(budget int) ([]byte, error) {
	line, err := f.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		limit := budget + 3 + bufSize // the loop below stops past budget+2
		f.raw = appendRaw(f.raw[:0], line, limit)
		// Stop reading once the line cannot fit, so that memory is
		// bounded by the budget, not by the line.
		for err == bufio.ErrBufferFull && len(f.raw) <= budget+2 {
			line, err = f.r.ReadSlice('\n')
			f.raw = appendRaw(f.raw, line, limit)
		}
		line = f.raw
	}
	f.off += int64(len(line))
	if len(line) == 0 && err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("csv: %s: line %d: %w", f.path, f.line+1, err)
	}
	f.line++
	f.col0 = 1
	if f.bom {
		f.bom = false
		if bytes.HasPrefix(line, byteOrderMark) {
			line = line[len(byteOrderMark):]
			f.col0 += len(byteOrderMark)
		}
	}
	switch {
	case err == io.EOF:
		err = nil
		// As encoding/csv does, a \r before the end of the file is dropped.
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	case err == bufio.ErrBufferFull:
		// The loop above stopped early: the line is over budget.
	case err != nil:
		return nil, fmt.Errorf("csv: %s: line %d: %w", f.path, f.line, err)
	}
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		line = line[:n-1]
	}
	if len(line)-lengthNL(line) > budget || err == bufio.ErrBufferFull {
		return nil, parseError(f.path, f.line, f.col0+budget, 0, fmt.Errorf("%w: a row of more than %d bytes (MaxLineBytes)", errLineTooLong, f.maxLine))
	}
	return line, nil
}

// appendRaw appends b to buf, which is never to hold more than limit
// bytes. It grows buf to limit/2^k, for the least k that fits, so that
// reading a long line allocates less than twice the limit in all, where
// append's gentler growth for large slices would allocate about five times
// the line.
func appendRaw(buf, b []byte, limit int) []byte {
	if need := len(buf) + len(b); need > cap(buf) {
		c := max(limit, need)
		for c/2 >= need && c/2 > cap(buf) {
			c /= 2
		}
		buf = append(make([]byte, 0, c), buf...)
	}
	return append(buf, b...)
}

// more doubles the capacity of s (16 at least), for the same reason as
// appendRaw.
func more[S ~[]E, E any](s S) S { return slices.Grow(s, max(cap(s), 16)) }

// lengthNL is 1 when b ends with \n, else 0.
func lengthNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}

// nextRune returns the first rune of b, or utf8.RuneError.
func nextRune(b []byte) rune {
	r, _ := utf8.DecodeRune(b)
	return r
}

// read reads the next record. It returns io.EOF at the end of the file, a
// *tensorfeed.Error for a record that cannot be split into fields (after which
// the next record can still be read: the bad one is consumed), or a fatal
// error (errLineTooLong, a read error) which every later call returns too.
func (f *file) read() error {
	if f.fatal != nil {
		return f.fatal
	}
	err := f.readRecord()
	if err != nil && err != io.EOF && !rowLevel(err) {
		f.fatal = err
	}
	return err
}

func (f *file) readRecord() error {
	f.buf, f.ends, f.cols, f.moves, f.str = f.buf[:0], f.ends[:0], f.cols[:0], f.moves[:0], ""
	// Skip comment and empty lines.
	var line []byte
	for {
		var err error
		if line, err = f.readLine(f.maxLine); err != nil {
			return err
		}
		if f.comment != 0 && nextRune(line) == f.comment {
			continue
		}
		if len(line) == lengthNL(line) {
			continue
		}
		break
	}
	f.rows++
	f.recLine = f.line
	if f.commaLen == 1 && bytes.IndexByte(line, '"') < 0 {
		return f.splitLine(line)
	}
	used := len(line) - lengthNL(line) // bytes of the record so far, for the budget
	lineNo, col := f.line, f.col0
	var bad error // the record's first error
parseField:
	for {
		if len(f.ends) > 0 {
			f.buf = append(f.buf, ',') // see buf
		}
		f.fstart = len(f.buf)
		fline, fcol := lineNo, col
		if len(line) == 0 || line[0] != '"' {
			i := bytes.IndexRune(line, f.comma)
			field := line
			if i >= 0 {
				field = field[:i]
			} else {
				field = field[:len(field)-lengthNL(field)]
			}
			if j := bytes.IndexByte(field, '"'); j >= 0 {
				return f.errAt(lineNo, col+j, 0, stdcsv.ErrBareQuote)
			}
			f.add(field)
			if err := f.endField(fline, fcol); bad == nil {
				bad = err
			}
			if i < 0 {
				break parseField
			}
			line = line[i+f.commaLen:]
			col += i + f.commaLen
			continue
		}
		// A quoted field, which may span lines.
		line = line[1:]
		col++
		for {
			if i := bytes.IndexByte(line, '"'); i >= 0 {
				f.add(line[:i])
				line = line[i+1:]
				col += i + 1
				switch rn := nextRune(line); {
				case rn == '"': // "" is a quote
					f.add(line[:1])
					line = line[1:]
					col++
				case rn == f.comma: // ", ends the field
					line = line[f.commaLen:]
					col += f.commaLen
					if err := f.endField(fline, fcol); bad == nil {
						bad = err
					}
					continue parseField
				case lengthNL(line) == len(line): // "\n ends the record
					if err := f.endField(fline, fcol); bad == nil {
						bad = err
					}
					break parseField
				default:
					return f.errAt(lineNo, col-1, 0, stdcsv.ErrQuote)
				}
				continue
			}
			if len(line) == 0 {
				// The file ends inside the quotes.
				return f.errAt(lineNo, col, 0, stdcsv.ErrQuote)
			}
			// The field goes on on the next line.
			f.add(line)
			next, err := f.readLine(f.maxLine - used)
			if err == io.EOF {
				err = nil
			}
			if err != nil {
				return err
			}
			if col += len(line); len(next) > 0 {
				lineNo, col = f.line, f.col0
			}
			line = next
			used += len(line) - lengthNL(line)
		}
	}
	if bad != nil {
		return bad
	}
	// The fields are parsed, looked up or quoted in errors, never kept
	// past the next record (but for the header's names, which start
	// clones), so they are views of buf, which the next record reuses,
	// rather than a copy of every record.
	f.str = unsafe.String(unsafe.SliceData(f.buf), len(f.buf))
	return nil
}

// splitLine splits a record that is one line without quotes, under a
// one-byte delimiter, as readRecord would, but with one search per field
// and without copying: the fields are views of the line, which stays in
// the reader's buffer (or in raw) until the next record is read.
func (f *file) splitLine(line []byte) error {
	line = line[:len(line)-lengthNL(line)]
	comma := byte(f.comma)
	var bad error
	for start := 0; ; {
		end := len(line)
		if i := bytes.IndexByte(line[start:], comma); i >= 0 {
			end = start + i
		}
		if len(f.ends) == cap(f.ends) {
			f.ends, f.cols = more(f.ends), more(f.cols)
		}
		f.ends = append(f.ends, int32(end))
		f.cols = append(f.cols, int32(f.col0+start))
		if end-start > f.maxField && bad == nil {
			bad = f.fieldTooLong(f.line, f.col0+start, len(f.ends), line[start:end])
		}
		if end == len(line) {
			break
		}
		start = end + 1
	}
	if bad != nil {
		return bad
	}
	f.str = unsafe.String(unsafe.SliceData(line), len(line))
	return nil
}

// add appends b to the field being read, keeping at most one byte more
// than maxField so that endField can tell the field is too long.
func (f *file) add(b []byte) {
	if room := f.fstart + f.maxField + 1 - len(f.buf); len(b) > room {
		b = b[:max(room, 0)]
	}
	if len(f.buf)+len(b) > cap(f.buf) {
		f.buf = slices.Grow(f.buf, max(len(b), cap(f.buf)))
	}
	f.buf = append(f.buf, b...)
}

// endField ends the field being read, which starts at line, col. It
// returns the error for a field longer than maxField, whose bytes beyond
// the limit were not kept.
func (f *file) endField(line, col int) error {
	n := len(f.ends)
	if last := f.recLine; len(f.moves) > 0 {
		last = f.moves[len(f.moves)-1].line
		if line != last {
			f.moves = append(f.moves, move{n, line})
		}
	} else if line != last {
		f.moves = append(f.moves, move{n, line})
	}
	// Grown apart from the appends, which then assign to themselves: the
	// compiler writes only the length back, without a write barrier.
	if len(f.ends) == cap(f.ends) {
		f.ends, f.cols = more(f.ends), more(f.cols)
	}
	f.ends = append(f.ends, int32(len(f.buf)))
	f.cols = append(f.cols, int32(col))
	if len(f.buf)-f.fstart > f.maxField {
		return f.fieldTooLong(line, col, n+1, f.buf[f.fstart:])
	}
	return nil
}

// fieldTooLong is the error for field number field (from 1), which starts
// at line, col and holds more than maxField bytes, of which b holds the
// first.
func (f *file) fieldTooLong(line, col, field int, b []byte) error {
	return parseError(f.path, line, col, field, fmt.Errorf("%w: more than %d bytes (MaxFieldBytes): %s", errFieldTooLong, f.maxField, quotePrefix(string(b[:min(len(b), excerptLen+1)]))))
}

func (f *file) errAt(line, col, field int, cause error) error {
	return parseError(f.path, line, col, field, cause)
}

// n is the number of fields of the record last read.
func (f *file) n() int { return len(f.ends) }

// field returns field i of the record last read, valid until the next
// record is read.
func (f *file) field(i int) string {
	start := int32(0)
	if i > 0 {
		start = f.ends[i-1] + 1
	}
	return f.str[start:f.ends[i]]
}

// pos returns the line and column where field i of the record last read
// starts.
func (f *file) pos(i int) (line, col int) {
	line = f.recLine
	for _, m := range f.moves {
		if m.field > i {
			break
		}
		line = m.line
	}
	return line, int(f.cols[i])
}

// excerptLen is how many bytes of a bad field an error quotes.
const excerptLen = 64

// excerpt quotes s for an error message: whole when it is short, else its
// first bytes, an ellipsis and its length, so that an error about a huge
// field stays short.
func excerpt(s string) string {
	if len(s) <= excerptLen {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s (%d bytes)", quotePrefix(s), len(s))
}

// quotePrefix quotes the first excerptLen bytes of s, cut at a rune
// boundary, followed by an ellipsis when s is longer.
func quotePrefix(s string) string {
	if len(s) <= excerptLen {
		return strconv.Quote(s)
	}
	cut := excerptLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}
