package imagerec

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed"
)

// badData is a sentinel that wraps tensorfeed.ErrBadData while keeping its
// own short message, so that errors built on it do not repeat the root's.
type badData struct{ msg string }

func (e *badData) Error() string { return e.msg }
func (e *badData) Unwrap() error { return tensorfeed.ErrBadData }

// ErrList is wrapped by every error about a malformed .lst file. The
// concrete error is a *ListError that says which line.
var ErrList error = &badData{"imagerec: bad .lst file"}

// ErrLabel is wrapped by errors about labels: a record whose id is missing
// from the .lst file, or whose label count does not match the label width.
var ErrLabel error = &badData{"imagerec: bad label"}

// RecordError reports a record that could not be turned into a sample: the
// file it came from, its index in the input and the byte offset where it
// starts. It wraps the cause, which in turn wraps a sentinel such as
// decode.ErrImage, decode.ErrSize, ErrLabel or ErrHeader.
type RecordError struct {
	File   string // the .rec file, empty when unknown
	Index  int    // the record's index in the input
	Offset int64  // the byte offset of the record's first part
	Err    error  // the cause
}

// FilePath returns the file the error is about, so that source.Files does
// not name it a second time.
func (e *RecordError) FilePath() string { return e.File }

// Error formats the error as "imagerec: FILE: record N at byte OFFSET: CAUSE".
func (e *RecordError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	return fmt.Sprintf("imagerec: %s: record %d at byte %d: %v", file, e.Index, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }

// ListError reports a malformed line of a .lst file. It wraps ErrList.
type ListError struct {
	File string // the .lst file, empty when unknown
	Line int    // 1-based line number
	Msg  string // what is wrong
}

// FilePath returns the file the error is about, so that source.Files does
// not name it a second time.
func (e *ListError) FilePath() string { return e.File }

// Error formats the error as "imagerec: FILE:LINE: MSG".
func (e *ListError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	return fmt.Sprintf("imagerec: %s:%d: %s", file, e.Line, e.Msg)
}

// Unwrap returns ErrList.
func (e *ListError) Unwrap() error { return ErrList }
