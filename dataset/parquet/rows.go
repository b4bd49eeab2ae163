package parquet

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tensorfeed/tensorfeed/source"
)

// reader is the re-iterable reader that Read, ReadColumns and ReadRaw
// return: source.Resumable, source.Identifier and source.SkipCounted.
type reader[T any] struct {
	core core[T]
	name string   // what it reads, for its states' kind
	cols []Column // the columns of ReadColumns, for its kind
}

var (
	_ source.Resumable[int] = (*reader[int])(nil)
	_ source.SkipCounted    = (*reader[int])(nil)
	_ source.Identifier     = (*reader[int])(nil)
)

// All starts a pass over the rows. The pass logs through
// tensorfeed.Logger(ctx): a debug entry when it opens the files, and a
// warning for each row the policy skips.
func (r *reader[T]) All(ctx context.Context) iter.Seq2[T, error] { return r.core.all(ctx) }

// Skipped returns how many bad rows the reader's policy (OnBad) has
// skipped, over all passes and all readers that share the policy.
func (r *reader[T]) Skipped() int64 { return r.core.c.bad.Skipped() }

// Read returns a reader of the rows of the Parquet files that list names,
// in order, each decoded into a T by parquet-go: T's fields name their
// columns with `parquet:"name"` tags (see parquet-go's documentation);
// columns of the file that T does not name are not read. list is a path or
// URL (see [Storage]), several separated by ';', a directory (its .parquet
// files) or a glob, as source.Paths expands it when a pass starts. The
// files are opened when a pass starts and closed when it ends.
//
// A pass starts by checking every file's magic, footer and the columns T
// names: a column missing from a file, or of another physical type than
// T's field, is an error wrapping ErrColumnType that names the file, the
// column and both types. Every page header of a row group is checked
// against the file and the limits before the row group is decoded.
// Malformed input ends the pass with a *tensorfeed.Error.
//
// The reader is source.Resumable: whole row groups before a state's
// position are skipped by their row counts, unread, and the row group that
// holds it is decoded and its rows before the position dropped. A state of
// another reader (another number of files, other columns) is an error
// wrapping source.ErrState.
func Read[T any](list string, opts ...Option) source.Reader[T] {
	c := newConfig(opts)
	return &reader[T]{name: "parquet", core: core[T]{list: list, c: c, prepare: prepareStructs[T], passes: &passes{}}}
}

// OpenIndexed opens the files of r, a reader of [Read], [ReadColumns] or
// [ReadRaw], for random access to its rows, decoded as r decodes them,
// with r's options. The files stay open until Close. A reader of another
// package is an error.
//
// The result is a source.Indexed: Len and Get over the rows of all its
// files in order, found through the row groups' row counts, so
// source.ReadIndexed shuffles it by index and resumes it from a position.
// It is a source.Identifier too (the files' names, sizes and times).
//
// Get decodes the row group that holds the row and keeps the last few
// decoded row groups, so reading in order, or a shuffle within few row
// groups, decodes each group once; a global shuffle over many row groups
// decodes a row group for most Gets: write small row groups for it, or
// shuffle with a buffer (pipeline's Shuffle) over a sequential reader. Get
// is safe for concurrent use. Close it when done with it.
func OpenIndexed[T any](r source.Reader[T]) (*indexedRows[T], error) {
	pr, ok := r.(*reader[T])
	if !ok {
		return nil, fmt.Errorf("parquet: OpenIndexed of a %T, not a reader of this package", r)
	}
	return pr.core.indexed()
}

// chunkRows is how many rows a decoder reads at a time.
const chunkRows = 1024

func prepareStructs[T any](files []*file, c *config) (decoder[T], error) {
	want := pq.SchemaOf(new(T))
	for _, f := range files {
		have := f.pf.Schema()
		for _, path := range want.Columns() {
			w, _ := want.Lookup(path...)
			name := strings.Join(path, ".")
			h, ok := have.Lookup(path...)
			if !ok {
				return nil, posError(f.path, -1, -1, -1, name, ErrColumnType, fmt.Sprintf("no such column in the file (asked for %s)", w.Node.Type()))
			}
			if hk, wk := h.Node.Type().Kind(), w.Node.Type().Kind(); hk != wk {
				return nil, posError(f.path, -1, -1, -1, name, ErrColumnType, fmt.Sprintf("the file holds %s, asked for %s", hk, wk))
			}
		}
	}
	return func(fi *file, _, g int, _ bool, put func(group[T]) bool) bool { return put(decodeStructs[T](fi, g, c)) }, nil
}

// inFile is a column that a reader decodes: a leaf or a raw column.
type inFile interface{ columnIndex() int }

func (l leaf) columnIndex() int      { return l.index }
func (c rawColumn) columnIndex() int { return c.index }

// groupCheck checks the pages of the column chunks of cols in row group
// g, or, when cols is nil, of every column chunk.
func groupCheck[C inFile](fi *file, g int, c *config, cols []C) error {
	if cols == nil {
		for ci := range fi.pf.Metadata().RowGroups[g].Columns {
			if err := fi.checkPages(g, ci, c); err != nil {
				return err
			}
		}
	}
	for _, col := range cols {
		if err := fi.checkPages(g, col.columnIndex(), c); err != nil {
			return err
		}
	}
	return nil
}

func decodeStructs[T any](fi *file, g int, c *config) group[T] {
	var out group[T]
	if err := groupCheck[leaf](fi, g, c, nil); err != nil {
		out.err = err
		return out
	}
	want := fi.pf.Metadata().RowGroups[g].NumRows
	bad := func(err error, msg string) group[T] {
		out.err = posError(fi.path, -1, g, fi.rowStart[g]+int64(len(out.rows)), "", err, msg)
		return out
	}
	err := guard(func() error {
		rd := pq.NewGenericRowGroupReader[T](fi.groups[g])
		defer rd.Close()
		for int64(len(out.rows)) < want {
			n := int(min(want-int64(len(out.rows)), chunkRows))
			out.rows = growRows(out.rows, n)
			k, err := rd.Read(out.rows[len(out.rows) : len(out.rows)+n])
			out.rows = out.rows[:len(out.rows)+k]
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return bad(err, err.Error())
	}
	if got := int64(len(out.rows)); got != want {
		return bad(io.ErrUnexpectedEOF, fmt.Sprintf("the row group holds %d rows, its metadata says %d", got, want))
	}
	return out
}

func growRows[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), max(2*cap(s), len(s)+n))
	copy(t, s)
	return t
}
