package parquet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/internal/skiplog"
	"github.com/tensorfeed/tensorfeed/source"
)

// A pass's position is the index, among the rows of its row groups, of
// the next row it would read: rows yielded plus rows skipped
// as bad. Resuming from a position skips whole row groups by the row
// counts of the footers, without reading them, and drops the first rows of
// the row group that holds the position after decoding it.

// passes is what a reader remembers of its passes for its states: how many
// it started (for passes run without an epoch) and, in a skiplog.Log,
// the positions of the rows each recent epoch's pass skipped as bad.
type passes struct {
	epochs source.Epochs
	skips  skiplog.Log
}

// kind names a reader in its states: what it reads (the number of
// elements of its list, the columns), not where the files are, so that a
// run resumes with its data moved.
func (r *core[T]) kind(name string, cols []Column) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(files=%d", name, len(strings.Split(r.list, ";")))
	if len(cols) > 0 {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = fmt.Sprintf("%s:%v%v", c.name, c.dtype, c.shape)
		}
		fmt.Fprintf(&b, ",columns=%s", strings.Join(names, ";"))
	}
	b.WriteByte(')')
	return b.String()
}

func (r *core[T]) stateAt(kind string, epoch int, n int64) (source.State, error) {
	if n < 0 {
		return source.State{}, fmt.Errorf("parquet: state after %d rows: negative count", n)
	}
	return source.State{Kind: kind, Pos: []int64{r.passes.skips.Position(epoch, r.from, n)}}, nil
}

// resumed returns a copy of r whose passes start at the position of st.
func (r *core[T]) resumed(kind string, st source.State) (core[T], error) {
	if err := st.Check(kind, 1, 0); err != nil {
		return core[T]{}, err
	}
	c := *r
	c.from = st.Pos[0]
	c.passes = &passes{}
	return c, nil
}

// skipTo returns units without the row groups wholly before position from,
// and how many rows of the first one left are before it.
func skipTo(files []*file, units []unit, from int64) ([]unit, int64) {
	for len(units) > 0 {
		u := units[0]
		n := files[u.file].pf.Metadata().RowGroups[u.group].NumRows
		if from < n {
			break
		}
		from -= n
		units = units[1:]
	}
	return slices.Clip(units), from
}

// StateAt returns the state of a pass of the given epoch after its
// consumer received n rows: {parquet(files[, columns]), [position]}, the
// position counting the rows the pass skipped as bad before them (see
// source.Resumable). It reads nothing.
func (r *reader[T]) StateAt(epoch int, n int64) (source.State, error) {
	return r.core.stateAt(r.core.kind(r.name, r.cols), epoch, n)
}

// Resume returns a reader whose passes continue the pass st was taken
// from (see [Read]).
func (r *reader[T]) Resume(st source.State) (source.Reader[T], error) {
	c, err := r.core.resumed(r.core.kind(r.name, r.cols), st)
	if err != nil {
		return nil, err
	}
	return &reader[T]{core: c, name: r.name, cols: r.cols}, nil
}

// Identity returns the identity of the files the reader reads: their base
// names, sizes and modification times or ETags (source.Identifier), so
// that a checkpoint of other files with the same row count is refused.
func (r *reader[T]) Identity(ctx context.Context) (string, error) { return r.core.identity(ctx) }

// identity is the identity of the files of the reader's list, for the
// readers and the random-access datasets of the package.
func (r *core[T]) identity(ctx context.Context) (string, error) {
	paths, err := source.Paths(ctx, r.list, ".parquet", r.c.storage...)
	if err != nil {
		return "", err
	}
	return dataid.Files(ctx, paths, r.c.storage...)
}
