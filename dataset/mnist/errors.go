package mnist

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every error about bad data in an IDX file.
var ErrFormat = errors.New("mnist: bad format")

// FormatError reports bad data in an IDX file and where it is. It wraps
// [ErrFormat] and, when there is one, the underlying cause (for example
// io.ErrUnexpectedEOF for a truncated file or gzip.ErrChecksum).
type FormatError struct {
	File   string // the file's path, or the name given to NewIDXReader
	Offset int64  // byte offset in the uncompressed IDX stream
	Msg    string // what is wrong
	Err    error  // the underlying cause, or nil
}

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
