package imagerec

import (
	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/cause"
)

// badData is a sentinel that wraps tensorfeed.ErrBadData while keeping its
// own short message, so that errors built on it do not repeat the root's.
type badData struct{ msg string }

func (e *badData) Error() string { return e.msg }
func (e *badData) Unwrap() error { return tensorfeed.ErrBadData }

// ErrList is wrapped by every error about a malformed .lst file. The
// concrete error is a *tensorfeed.Error that says which line.
var ErrList error = &badData{"imagerec: bad .lst file"}

// recordErr returns the error about a record that could not be turned
// into a sample: a *tensorfeed.Error with the file it came from, its index
// in the input (Record) and the byte offset where it starts. It wraps err,
// which in turn wraps a sentinel such as decode.ErrImage, decode.ErrSize
// or ErrHeader.
func recordErr(rec recordio.Record, err error) error {
	return &tensorfeed.Error{Path: rec.File, Offset: rec.Offset, Record: int64(rec.Index), Err: err}
}

// listError returns the error about a malformed line of a .lst file: a
// *tensorfeed.Error with the file and the line (from 1), which wraps
// ErrList.
func listError(file string, line int, msg string) error {
	return &tensorfeed.Error{Path: file, Offset: -1, Record: -1, Line: line, Err: cause.New(ErrList, nil, msg)}
}
