package mnist

import (
	"errors"
	"fmt"

	"github.com/tensorfeed/tensorfeed"
)

// ErrFormat is wrapped by every error about bad data in an IDX file or an
// MNIST pair of files. It wraps [tensorfeed.ErrBadData], so code that reads
// several formats can test for bad data with one errors.Is.
var ErrFormat = fmt.Errorf("mnist: bad format: %w", tensorfeed.ErrBadData)

// ErrTooLarge is the cause of a [FormatError] about a header that declares
// more than a configured maximum ([MaxRecordBytes], [MaxFileBytes]). Such a
// file may be valid for a reader with a larger maximum: the error says which
// option to raise.
var ErrTooLarge = errors.New("larger than the configured maximum")

// FormatError reports bad data in an IDX file and where it is. It wraps
// [ErrFormat] and, when there is one, the underlying cause (for example
// io.ErrUnexpectedEOF for a truncated file, gzip.ErrChecksum, or
// [ErrTooLarge]).
type FormatError struct {
	File   string // the file's path, or the name given to NewIDXReader
	Offset int64  // byte offset in the uncompressed IDX stream
	// Record is the index of the record (the slice along the first
	// dimension) the error is about, or -1 when it is about the header or
	// the end of the file.
	Record int
	Msg    string // what is wrong
	Err    error  // the underlying cause, or nil
}

// FilePath returns the file the error is about, so that source.Files does
// not name it a second time.
func (e *FormatError) FilePath() string { return e.File }

func (e *FormatError) Error() string {
	s := fmt.Sprintf("mnist: %s: offset %d: %s", e.File, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrFormat and the underlying cause.
func (e *FormatError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrFormat}
	}
	return []error{ErrFormat, e.Err}
}
