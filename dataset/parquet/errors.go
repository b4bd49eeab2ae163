package parquet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tensorfeed/tensorfeed"
)

// ErrFormat is wrapped by every error about malformed Parquet input (its
// magic, its footer, its pages, a row that does not fit the column asked
// for); test it with errors.Is. The concrete error is a *FormatError that
// says where. ErrFormat wraps tensorfeed.ErrBadData.
var ErrFormat error = &badData{"parquet: bad format"}

// ErrTooLarge is wrapped by the error for a footer, a page or a page's
// value count over the reader's limits ([MaxFooterBytes],
// [MaxMetadataBytes], [MaxPageBytes], [MaxPageValues]).
var ErrTooLarge = errors.New("parquet: larger than the configured maximum")

// ErrShape is wrapped by the error for a row whose value does not fit the
// shape of its [Column]: a list of another length, or a null. The rows
// around it are intact, so a bad-record policy ([SkipBad], [OnBad]) may
// skip it.
var ErrShape = errors.New("parquet: value does not fit the column's shape")

// ErrColumnType is wrapped by the error a pass starts with when a column
// asked for is missing from a file or holds another type than asked for.
var ErrColumnType = errors.New("parquet: column type mismatch")

// badData is a sentinel that wraps tensorfeed.ErrBadData while keeping its
// own short message, so that errors built on it do not repeat the root's.
type badData struct{ msg string }

func (e *badData) Error() string { return e.msg }
func (e *badData) Unwrap() error { return tensorfeed.ErrBadData }

// FormatError describes malformed input: which file and where in it (a
// byte offset, a row group, a row, a column; each is -1 or empty when it
// does not apply), and what is wrong. It wraps ErrFormat, and Err when that
// is set (io.ErrUnexpectedEOF for a truncated file, ErrTooLarge, ErrShape,
// ErrColumnType, an error of parquet-go).
type FormatError struct {
	File     string // name of the file, empty when unknown
	Offset   int64  // byte offset in the file, or -1
	RowGroup int    // index of the row group in the file, or -1
	Row      int64  // index of the row in the file, from 0, or -1
	Column   string // the column's name or dotted path, or ""
	Msg      string // what is wrong
	Err      error  // underlying cause, may be nil
}

// FilePath returns the file the error is about, so that source.Files does
// not name it a second time.
func (e *FormatError) FilePath() string { return e.File }

// Error formats the error as "parquet: FILE: row group G, row R, column
// "C", offset N: MSG", leaving out the parts that do not apply.
func (e *FormatError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	var b strings.Builder
	b.WriteString("parquet: ")
	b.WriteString(file)
	sep := ": "
	add := func(s string) {
		b.WriteString(sep)
		b.WriteString(s)
		sep = ", "
	}
	if e.RowGroup >= 0 {
		add(fmt.Sprintf("row group %d", e.RowGroup))
	}
	if e.Row >= 0 {
		add(fmt.Sprintf("row %d", e.Row))
	}
	if e.Column != "" {
		add(fmt.Sprintf("column %q", e.Column))
	}
	if e.Offset >= 0 {
		add(fmt.Sprintf("offset %d", e.Offset))
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrFormat and the underlying cause, if any.
func (e *FormatError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrFormat, e.Err}
	}
	return []error{ErrFormat}
}

// fileError returns a *FormatError about the file as a whole at offset off.
func fileError(path string, off int64, cause error, format string, args ...any) *FormatError {
	return &FormatError{File: path, Offset: off, RowGroup: -1, Row: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
}
