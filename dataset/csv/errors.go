package csv

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every error about bad data in a CSV file.
var ErrFormat = errors.New("csv: bad format")

// The causes a ParseError wraps besides ErrFormat.
var (
	// ErrFieldCount: a row has a different number of fields than the
	// first row (or the header).
	ErrFieldCount = errors.New("wrong number of fields")
	// ErrNumber: a data or label field is not a float32 number.
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
)

// ParseError reports a bad row, as encoding/csv's ParseError does, with the
// file it is in. It wraps ErrFormat and Err.
type ParseError struct {
	File   string // path of the file
	Line   int    // line of the error (1-based)
	Column int    // byte column of the field (1-based), 0 when not known
	Field  int    // the field's number in its row (1-based), 0 when not known
	Err    error  // the cause: wraps ErrFieldCount, ErrNumber, ... or an encoding/csv error
}

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
