package tensorfeed

import (
	"strconv"
	"strings"
)

// Error is the one positioned error of tensorfeed: every format reader,
// storage and source.Files say where an error is with an *Error, as the
// os and io/fs packages do with *fs.PathError. A caller prints or tests a
// position without knowing the format:
//
//	var e *tensorfeed.Error
//	if errors.As(err, &e) && e.Record >= 0 {
//		log.Printf("skip record %d of %s", e.Record, e.Path)
//	}
//
// What went wrong is Err, which wraps the format's sentinel
// (recordio.ErrFormat, csv.ErrFormat, ...), and so tensorfeed.ErrBadData
// for bad data: errors.Is sees through an *Error to them. A position part
// that does not apply or is not known is -1 (Offset, Record), 0 (Line,
// Column) or "" (Path, Member). A reader fills every part it knows; the
// outermost *Error of a chain is the one errors.As finds.
type Error struct {
	Path   string // the file, URL or stream; "" when unknown
	Offset int64  // byte offset of the fault (of the record's header for a record), -1 when unknown
	Record int64  // index of the record, row or sample in the file, from 0; -1 when unknown
	Line   int    // line, from 1; 0 when unknown
	Column int    // column, from 1 (a byte column in a text file); 0 when unknown
	Member string // a named part: a tar member, a feature, a column, a field; "" for none
	Err    error  // the cause, which wraps the format's sentinel
}

// maxMemberInError is how much of Member Error quotes: a name read from a
// file may be as long as its record.
const maxMemberInError = 256

// Error returns one line that says where and what, the parts that are not
// known left out:
//
//	PATH: record R, line L, column C at byte B: member "M": CAUSE
//
// for example "train.rec: record 12 at byte 4096: recordio: bad format:
// bad magic". A Member longer than 256 bytes is cut, with its length.
func (e *Error) Error() string {
	var b strings.Builder
	sep := ""
	part := func() {
		b.WriteString(sep)
		sep = ": "
	}
	if e.Path != "" {
		part()
		b.WriteString(e.Path)
	}
	if pos := e.position(); pos != "" {
		part()
		b.WriteString(pos)
	}
	if e.Member != "" {
		part()
		b.WriteString("member ")
		if len(e.Member) > maxMemberInError {
			b.WriteString(strconv.Quote(e.Member[:maxMemberInError]))
			b.WriteString("... (" + strconv.Itoa(len(e.Member)) + " bytes)")
		} else {
			b.WriteString(strconv.Quote(e.Member))
		}
	}
	part()
	if e.Err == nil {
		b.WriteString("unknown error")
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// position returns "record R, line L, column C at byte B" without the
// parts that are unknown, or "" when none is known.
func (e *Error) position() string {
	var parts []string
	if e.Record >= 0 {
		parts = append(parts, "record "+strconv.FormatInt(e.Record, 10))
	}
	if e.Line > 0 {
		parts = append(parts, "line "+strconv.Itoa(e.Line))
	}
	if e.Column > 0 {
		parts = append(parts, "column "+strconv.Itoa(e.Column))
	}
	s := strings.Join(parts, ", ")
	if e.Offset >= 0 {
		if s != "" {
			s += " at "
		}
		s += "byte " + strconv.FormatInt(e.Offset, 10)
	}
	return s
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
