package csv

import (
	"context"

	"github.com/tensorfeed/tensorfeed/source"
)

// Table is the rows of a CSV file held in memory: a random-access dataset
// (source.Indexed[Row]) to read with source.ReadIndexed, in order or
// shuffled by index, and to resume at any position of an epoch. Make one
// with [Reader.Load]. It is safe for concurrent use.
type Table struct {
	rows []Row
	path string
	from *Reader // the reader loaded, which names the files and their storage
}

var (
	_ source.Indexed[Row] = (*Table)(nil)
	_ source.Identifier   = (*Table)(nil)
)

// Load reads one pass of the reader (its options, bad-record policy
// included, apply) and keeps its rows in memory. The memory is what the
// rows hold: 4 bytes per data and label value (8 under an integer
// [DType]) plus a small fixed cost per row, each row bounded by [MaxLineBytes]; use Load for files that fit in
// memory, and the streaming reader for the others. The first error of the
// pass is returned, with no table.
func (r *Reader) Load(ctx context.Context) (*Table, error) {
	rows, err := source.Collect(ctx, r)
	if err != nil {
		return nil, err
	}
	return &Table{rows: rows, path: r.path, from: r}, nil
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Get returns row i (its Line says where it was in the file). The row's
// slices belong to the table: do not modify them. An index outside
// [0, Len()) is an error wrapping source.ErrIndex.
func (t *Table) Get(i int) (Row, error) {
	if uint(i) >= uint(len(t.rows)) {
		return Row{}, source.IndexError(i, len(t.rows))
	}
	return t.rows[i], nil
}

// Identity returns the identity of the data file and the label file the
// table was loaded from, as [Reader.Identity] gives it (source.Identifier):
// a checkpoint of source.ReadIndexed over the table is refused over a
// table of another file with as many rows. It reads the files' metadata
// again, not the table's rows.
func (t *Table) Identity(ctx context.Context) (string, error) {
	if t.from == nil {
		return "", nil
	}
	return t.from.Identity(ctx)
}
