package csv

import (
	"errors"
	"fmt"

	"github.com/tensorfeed/tensorfeed"
)

// ErrFormat is wrapped by every error about bad data in a CSV file. It
// wraps tensorfeed.ErrBadData.
var ErrFormat = fmt.Errorf("csv: bad format: %w", tensorfeed.ErrBadData)

// The causes a ParseError wraps besides ErrFormat.
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
	// ErrRowCount: the data and label files hold different numbers of
	// rows.
	ErrRowCount = errors.New("data and label files differ in rows")
	// ErrEmpty: the file holds no data row (it is empty, or holds only
	// the rows that SkipRows and Header consume).
	ErrEmpty = errors.New("no data rows")
	// ErrLineTooLong: a row holds more bytes than MaxLineBytes. The
	// error's position is the byte where the row passes the limit.
	ErrLineTooLong = errors.New("line too long")
	// ErrFieldTooLong: a field holds more bytes than MaxFieldBytes.
	ErrFieldTooLong = errors.New("field too long")
)

// ParseError reports a bad row, as encoding/csv's ParseError does, with the
// file it is in. It wraps ErrFormat (and so tensorfeed.ErrBadData) and Err.
type ParseError struct {
	File   string // path of the file
	Line   int    // line of the error (1-based)
	Column int    // byte column of the field (1-based), 0 when not known
	Field  int    // the field's number in its row (1-based), 0 when not known
	Err    error  // the cause: wraps ErrFieldCount, ErrNumber, ... or encoding/csv's ErrQuote or ErrBareQuote
}

// FilePath returns the file the error is about, so that source.Files does
// not name it a second time.
func (e *ParseError) FilePath() string { return e.File }

func (e *ParseError) Error() string {
	switch {
	case e.Field > 0:
		return fmt.Sprintf("csv: %s:%d:%d: field %d: %v", e.File, e.Line, e.Column, e.Field, e.Err)
	case e.Column > 0:
		return fmt.Sprintf("csv: %s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("csv: %s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns ErrFormat and the cause.
func (e *ParseError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// rowLevel tells whether err is about one row only, which a SkipPolicy may
// skip: a row that cannot be split into fields or whose fields cannot be
// parsed. A row over MaxLineBytes, a missing or unreadable file, a bad
// header or layout and data and label files that differ in rows are not:
// they end the pass under any policy.
func rowLevel(err error) bool {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return false
	}
	for _, structural := range []error{ErrLineTooLong, ErrRowCount, ErrShape, ErrColumn, ErrEmpty} {
		if errors.Is(pe.Err, structural) {
			return false
		}
	}
	return true
}
