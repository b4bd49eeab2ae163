package parquet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/source"
)

// A pass's position is the index, among the rows of its row groups (after
// [Shard]), of the next row it would read: rows yielded plus rows skipped
// as bad. Resuming from a position skips whole row groups by the row
// counts of the footers, without reading them, and drops the first rows of
// the row group that holds the position after decoding it.

// passes is what a reader remembers of its passes for its states: how many
// it started (for passes run without an epoch) and, in a source.SkipLog,
// the positions of the rows each recent epoch's pass skipped as bad.
type passes struct {
	epochs source.Epochs
	skips  source.SkipLog
}

// kind names a reader in its states: what it reads (the file count, the
// columns) and its shard, not where the files are, so that a run resumes
// with its data moved.
func (r *core[T]) kind(name string, cols []Column) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(files=%d", name, len(r.paths))
	if len(cols) > 0 {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = fmt.Sprintf("%s:%v%v", c.Name, c.DType, c.Shape)
		}
		fmt.Fprintf(&b, ",columns=%s", strings.Join(names, ";"))
	}
	if r.c.shardCount > 1 {
		fmt.Fprintf(&b, ",shard=%d/%d", r.c.shardIndex, r.c.shardCount)
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

var (
	_ source.Resumable[int] = (*Rows[int])(nil)
	_ source.Resumable[Row] = (*ColumnRows)(nil)
)

// StateAt returns the state of a pass of the given epoch after its
// consumer received n rows: {parquet(files, shard), [position]}, the
// position counting the rows the pass skipped as bad before them (see
// source.Resumable). It reads nothing.
func (r *Rows[T]) StateAt(epoch int, n int64) (source.State, error) {
	return r.core.stateAt(r.core.kind("parquet", nil), epoch, n)
}

// Resume returns a reader whose passes continue the pass st was taken
// from: whole row groups before its position are skipped by their row
// counts, unread, and the row group that holds it is decoded and its rows
// before the position dropped. A state of another reader (another number
// of files, another shard) is an error wrapping source.ErrState.
func (r *Rows[T]) Resume(st source.State) (source.Reader[T], error) {
	c, err := r.core.resumed(r.core.kind("parquet", nil), st)
	if err != nil {
		return nil, err
	}
	return &Rows[T]{core: c}, nil
}

// StateAt returns the state of a pass of the given epoch after its
// consumer received n rows: {parquet-columns(files, columns, shard),
// [position]}, the position counting the rows the pass skipped as bad
// before them (see source.Resumable). It reads nothing.
func (r *ColumnRows) StateAt(epoch int, n int64) (source.State, error) {
	return r.core.stateAt(r.core.kind("parquet-columns", r.cols), epoch, n)
}

// Resume returns a reader whose passes continue the pass st was taken
// from, as [Rows.Resume] does. A state of another reader (other columns,
// another number of files, another shard) is an error wrapping
// source.ErrState.
func (r *ColumnRows) Resume(st source.State) (source.Reader[Row], error) {
	c, err := r.core.resumed(r.core.kind("parquet-columns", r.cols), st)
	if err != nil {
		return nil, err
	}
	return &ColumnRows{core: c, cols: r.cols}, nil
}

// Identity returns the identity of the files the reader reads: their base
// names, sizes and modification times or ETags (source.Identifier), so
// that a checkpoint of other files with the same row count is refused.
func (r *Rows[T]) Identity(ctx context.Context) (string, error) { return r.core.identity(ctx) }

// identity is the identity of the files at the reader's paths, for the
// readers and the random-access datasets of the package.
func (r *core[T]) identity(ctx context.Context) (string, error) {
	return dataid.Files(ctx, r.paths, r.c.storage...)
}

// Identity returns the identity of the files the reader reads, as
// [Rows.Identity] does.
func (r *ColumnRows) Identity(ctx context.Context) (string, error) { return r.core.identity(ctx) }

var (
	_ source.Identifier = (*Rows[int])(nil)
	_ source.Identifier = (*ColumnRows)(nil)
)
