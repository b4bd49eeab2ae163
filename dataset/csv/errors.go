package csv

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
)

// ErrFormat is wrapped by every error about bad data in a CSV file. It
// wraps tensorfeed.ErrBadData.
var ErrFormat = fmt.Errorf("csv: bad format: %w", tensorfeed.ErrBadData)

// The causes a row's error wraps besides ErrFormat.
var (
	// ErrFieldCount: a row has a different number of fields than the
	// first row (or the header).
	ErrFieldCount = errors.New("wrong number of fields")
	// ErrNumber: a data or label field is not a float32 number (or is
	// inf or nan under Finite), or, under an integer DType, not an
	// integer of that type.
	ErrNumber = errors.New("not a number")
	// ErrClass: a label is not one of the names given to Classes.
	ErrClass = errors.New("unknown class")
	// ErrShape: the columns do not match DataShape or LabelShape.
	ErrShape = errors.New("shape mismatch")
	// ErrColumn: a column named by LabelColumns or DataColumns is not in
	// the file.
	ErrColumn = errors.New("no such column")
	// ErrTooLarge: a row holds more bytes than MaxLineBytes (the error's
	// position is the byte where the row passes the limit, and the pass
	// ends), or a field more than MaxFieldBytes (the row is bad).
	ErrTooLarge = errors.New("larger than the configured maximum")
)

// Causes of file-level errors with no exported name, since a caller does
// the same about them as about any bad file (the text says which):
// errRowCount, data and label files of different numbers of rows, and
// errEmpty, a file with no data row (it is empty, or holds only the rows
// that SkipRows and Header consume).
var (
	errRowCount = errors.New("data and label files differ in rows")
	errEmpty    = errors.New("no data rows")
)

// The ErrTooLarge of a row over MaxLineBytes, told apart from a field's
// because it ends the pass under any policy (rowLevel), and of a field.
var (
	errLineTooLong  = cause.Sentinel("line too long", ErrTooLarge)
	errFieldTooLong = cause.Sentinel("field too long", ErrTooLarge)
)

// parseError returns the error about a bad row: a *tensorfeed.Error with
// the file, the line (from 1), the byte column of the field (from 1, 0 when
// not known) and, as Member, "field N" for the field's number in its row
// (from 1; 0 when not known gives no Member), as encoding/csv's ParseError
// says Line and Column. It wraps ErrFormat (and so tensorfeed.ErrBadData)
// and err, which wraps ErrFieldCount, ErrNumber, ... or encoding/csv's
// ErrQuote or ErrBareQuote.
func parseError(path string, line, col, field int, err error) *tensorfeed.Error {
	e := &tensorfeed.Error{Path: path, Offset: -1, Record: -1, Line: line, Column: col, Err: cause.Prefixed("csv: ", ErrFormat, err)}
	if field > 0 {
		e.Member = "field " + strconv.Itoa(field)
	}
	return e
}

// rowLevel tells whether err is about one row only, which a SkipPolicy may
// skip: a row that cannot be split into fields or whose fields cannot be
// parsed. A row over MaxLineBytes, a missing or unreadable file, a bad
// header or layout and data and label files that differ in rows are not:
// they end the pass under any policy.
func rowLevel(err error) bool {
	return streamfile.OneRecord(err, ErrFormat, errLineTooLong, errRowCount, ErrShape, ErrColumn, errEmpty)
}
