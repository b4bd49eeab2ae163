package csv

import (
	"context"

	"github.com/tensorfeed/tensorfeed/source"
)

// table is the rows of a CSV file held in memory, which Load returns.
type table struct {
	rows []Row
	path string
	from *Reader // the reader loaded, which names the files and their storage
}

var (
	_ source.Indexed[Row] = (*table)(nil)
	_ source.Identifier   = (*table)(nil)
)

// Load reads one pass of the reader (its options, bad-record policy
// included, apply) and keeps its rows in memory: a random-access dataset
// to read with source.ReadIndexed, in order or shuffled by index, and to
// resume at any position of an epoch. Its Get(i) gives row i (whose Line
// says where it was in the file; its slices belong to the table and must
// not be modified), and an index outside [0, Len()) is an error wrapping
// source.ErrIndex. It is a source.Identifier, whose identity is the
// reader's ([Reader.Identity]): a checkpoint of source.ReadIndexed over it
// is refused over a table of another file with as many rows. It is safe
// for concurrent use. The memory is what the
// rows hold: 4 bytes per data and label value (8 under an integer
// [DType]) plus a small fixed cost per row, each row bounded by [MaxLineBytes]; use Load for files that fit in
// memory, and the streaming reader for the others. The first error of the
// pass is returned, with no table.
func (r *Reader) Load(ctx context.Context) (source.Indexed[Row], error) {
	var rows []Row
	for row, err := range r.all(ctx, false) {
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return &table{rows: rows, path: r.path, from: r}, nil
}

// Len returns the number of rows.
func (t *table) Len() int { return len(t.rows) }

// Get returns row i (see Load).
func (t *table) Get(i int) (Row, error) {
	if uint(i) >= uint(len(t.rows)) {
		return Row{}, source.IndexError(i, len(t.rows))
	}
	return t.rows[i], nil
}

// Identity returns the identity of the data file and the label file the
// table was loaded from (see Load). It reads the files' metadata again,
// not the table's rows.
func (t *table) Identity(ctx context.Context) (string, error) {
	if t.from == nil {
		return "", nil
	}
	return t.from.Identity(ctx)
}
