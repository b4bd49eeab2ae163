// Package badrows carries the rows of a batch that a sink could not fill
// (a field made by sink.Fill whose fill failed) from package sink to the
// pipeline's Tensorize, which skips them under a bad-record policy or ends
// the pass with the first one's error.
package badrows

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/tensor"
)

// Error is the error of a batch some of whose rows could not be filled.
// Batch holds the batch with every other row filled (the failed rows hold
// whatever the fill left), owned by whoever receives the error.
type Error struct {
	Batch *tensor.Batch
	Field []string // the field whose fill failed, for each row of Rows
	Rows  []int    // the failed rows of the batch, ascending
	Errs  []error  // the fill's error for each row of Rows
}

// Error returns the first failed row's error, naming its field and row.
func (e *Error) Error() string {
	return fmt.Sprintf("sink: field %q, row %d of the batch: %v", e.Field[0], e.Rows[0], e.Errs[0])
}

// Unwrap returns the first failed row's error, so that errors.Is and
// errors.As see the fill's sentinel and position.
func (e *Error) Unwrap() error { return e.Errs[0] }

// Add records that the fill of field failed for row with err, keeping
// Rows ascending and one entry per row (the first field's error wins).
func (e *Error) Add(field string, row int, err error) {
	i := len(e.Rows)
	for i > 0 && e.Rows[i-1] >= row {
		if e.Rows[i-1] == row {
			return
		}
		i--
	}
	e.Rows = append(e.Rows, 0)
	e.Field = append(e.Field, "")
	e.Errs = append(e.Errs, nil)
	copy(e.Rows[i+1:], e.Rows[i:])
	copy(e.Field[i+1:], e.Field[i:])
	copy(e.Errs[i+1:], e.Errs[i:])
	e.Rows[i], e.Field[i], e.Errs[i] = row, field, err
}
