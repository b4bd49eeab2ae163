package parquet

import (
	"errors"
	"fmt"

	"github.com/tensorfeed/tensorfeed"
	errcause "github.com/tensorfeed/tensorfeed/internal/cause"
)

// ErrFormat is wrapped by every error about malformed Parquet input (its
// magic, its footer, its pages, a row that does not fit the column asked
// for); test it with errors.Is. The concrete error is a [*tensorfeed.Error]
// that says where: the file, the byte offset, the row (Record), the column
// (Member); the row group is in its text. ErrFormat wraps
// tensorfeed.ErrBadData.
var ErrFormat error = &badData{"parquet: bad format"}

// ErrTooLarge is wrapped by the error for a footer, a page or a page's
// value count over the reader's limits ([MaxFooterBytes],
// [MaxMetadataBytes], [MaxPageBytes], [MaxPageValues]).
var ErrTooLarge = errors.New("parquet: larger than the configured maximum")

// errShape is the cause of the ErrFormat error for a row whose value does
// not fit the shape of its [Column]: a list of another length, or a null.
// The rows around it are intact, so a bad-record policy ([OnBad]) may skip
// it; a caller does the same about it as about any bad row, so it has no
// exported name.
var errShape = errors.New("parquet: value does not fit the column's shape")

// ErrColumnType is wrapped by the error a pass starts with when a column
// asked for is missing from a file or holds another type than asked for.
var ErrColumnType = errors.New("parquet: column type mismatch")

// badData is a sentinel that wraps tensorfeed.ErrBadData while keeping its
// own short message, so that errors built on it do not repeat the root's.
type badData struct{ msg string }

func (e *badData) Error() string { return e.msg }
func (e *badData) Unwrap() error { return tensorfeed.ErrBadData }

// posError returns the error about malformed input in file: at byte offset
// off, in row group group, at row row (its index in the file, from 0), in
// column col (its name or dotted path); each is -1 or "" when it does not
// apply. The column is the error's Member, the row its Record, and the row
// group is named in the message. It wraps ErrFormat, and cause when that is
// not nil (io.ErrUnexpectedEOF for a truncated file, ErrTooLarge, errShape,
// ErrColumnType, an error of parquet-go), whose text msg says.
func posError(file string, off int64, group int, row int64, col string, cause error, msg string) *tensorfeed.Error {
	err := errcause.New(ErrFormat, cause, msg)
	if group >= 0 {
		err = &inGroup{group, err}
	}
	return &tensorfeed.Error{Path: file, Offset: off, Record: row, Member: col, Err: err}
}

// inGroup is the cause of an error about a row group: it reads "row group
// G: " and the error.
type inGroup struct {
	group int
	err   error
}

func (e *inGroup) Error() string { return fmt.Sprintf("row group %d: %v", e.group, e.err) }
func (e *inGroup) Unwrap() error { return e.err }

// RowGroup returns the index of the row group in its file that err, an
// error of this package, is about, or -1 when err is about no row group
// (the file's magic, its footer, the columns asked for) or not about
// Parquet data. The rest of the position is err's [*tensorfeed.Error].
func RowGroup(err error) int {
	var g *inGroup
	if errors.As(err, &g) {
		return g.group
	}
	return -1
}

// fileError returns the error about the file as a whole at offset off.
func fileError(path string, off int64, cause error, format string, args ...any) *tensorfeed.Error {
	return posError(path, off, -1, -1, "", cause, fmt.Sprintf(format, args...))
}
