package parquet

import (
	"context"
	"fmt"
	"io"
	"iter"
	"slices"
	"sort"
	"sync"

	pq "github.com/parquet-go/parquet-go"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
)

// group is the decoded rows of one row group, in order. bad, when not nil,
// holds per row the error that makes it a bad record (nil for good rows).
// err, when not nil, is a structural error met after the rows decoded.
type group[T any] struct {
	rows []T
	bad  []error
	err  error
	// pages holds, with ReuseBuffer, the pages of parquet-go whose values
	// rows hold: they go back to parquet-go's pool once the consumer is
	// past the group.
	pages []pq.Page
}

// decoder decodes row group g of a file and hands its rows to put in
// order: in parts of it, each consumed before put returns (see
// decodeColumns), or, when whole, in one group. A part with an error is
// the last. It stops when put returns false, and reports whether put
// always returned true. A decoder is made once per pass (or per
// indexedRows) from the opened files, which is where column types are
// checked.
type decoder[T any] func(fi *file, fileIndex, g int, whole bool, put func(group[T]) bool) bool

// collect returns row group g as dec decodes it whole, for the readers
// that decode row groups ahead (Workers) or keep them (OpenIndexed).
func collect[T any](dec decoder[T], fi *file, fileIndex, g int) group[T] {
	var all group[T]
	dec(fi, fileIndex, g, true, func(whole group[T]) bool {
		all = whole
		return true
	})
	return all
}

// unit names one row group of one file.
type unit struct{ file, group int }

// core is what the readers of structs and of columns share: the files,
// the options, and how a pass reads the row groups.
type core[T any] struct {
	list    string // the files, as source.Paths expands them
	c       config
	prepare func(files []*file, c *config) (decoder[T], error)
	from    int64   // the position passes start at (see resume.go)
	passes  *passes // what the passes skipped, for states
}

// units returns the row groups of files, in order, and their row count.
func (r *core[T]) units(files []*file) ([]unit, int64) {
	var all []unit
	var rows int64
	for fi, f := range files {
		for g := range f.groups {
			all = append(all, unit{fi, g})
			rows += f.pf.Metadata().RowGroups[g].NumRows
		}
	}
	return all, rows
}

func (r *core[T]) all(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		ctx, epoch := r.passes.epochs.Start(ctx)
		r.passes.skips.Start(epoch)
		paths, err := source.Paths(ctx, r.list, ".parquet", r.c.storage...)
		if err != nil {
			yield(zero, err)
			return
		}
		files, err := openAll(ctx, paths, &r.c)
		if err != nil {
			yield(zero, err)
			return
		}
		defer closeAll(files)
		log := tensorfeed.Logger(ctx)
		if ce := log.Check(zap.DebugLevel, "parquet open"); ce != nil {
			ce.Write(zap.Strings("files", paths), zap.Int("workers", r.c.workers))
		}
		dec, err := r.prepare(files, &r.c)
		if err != nil {
			yield(zero, err)
			return
		}
		units, rows := r.units(files)
		pos := r.from // the position of the next row
		units, drop := skipTo(files, units, r.from)
		skips := (*skipcount.Policy)(r.c.bad).Pass(max(rows-r.from, 0), log)
		emit := func(g group[T]) bool {
			first := int(min(drop, int64(len(g.rows))))
			drop -= int64(first)
			for i, row := range g.rows[first:] {
				i += first
				pos++
				if g.bad != nil && g.bad[i] != nil {
					if err := skips.Bad(g.bad[i]); err != nil {
						yield(zero, err)
						return false
					}
					r.passes.skips.Skipped(epoch, pos-1)
					continue
				}
				skips.Good()
				if !yield(row, nil) {
					return false
				}
			}
			if g.err != nil {
				yield(zero, g.err)
				return false
			}
			for _, p := range g.pages {
				pq.Release(p)
			}
			return true
		}
		if r.c.workers <= 1 || len(units) <= 1 {
			for _, u := range units {
				if ctx.Err() != nil {
					yield(zero, ctx.Err())
					return
				}
				if !dec(files[u.file], u.file, u.group, false, emit) {
					return
				}
			}
		} else if !r.parallel(ctx, files, units, dec, emit) {
			return
		}
		if err := skips.End(); err != nil {
			yield(zero, err)
		}
	}
}

// parallel decodes up to workers row groups at once and hands them to emit
// in order. It reports whether the pass is to go on.
func (r *core[T]) parallel(ctx context.Context, files []*file, units []unit, dec decoder[T], emit func(group[T]) bool) bool {
	var zero T
	sg, gctx := scope.New(ctx)
	// futures carries one channel per row group, in order; its buffer
	// bounds how many row groups are decoded ahead of the consumer.
	futures := make(chan chan group[T], r.c.workers-1)
	sg.Go(func() error {
		defer close(futures)
		for _, u := range units {
			fut := make(chan group[T], 1)
			if !scope.Send(gctx, futures, fut) {
				return nil
			}
			sg.Go(func() error {
				fut <- collect(dec, files[u.file], u.file, u.group)
				return nil
			})
		}
		return nil
	})
	defer sg.Stop()
	for fut := range futures {
		var g group[T]
		select {
		case g = <-fut:
		case <-gctx.Done():
			if err := sg.Stop(); err != nil {
				_ = emit(group[T]{err: err})
				return false
			}
			emit(group[T]{err: ctx.Err()})
			return false
		}
		if !emit(g) {
			return false
		}
	}
	if err := sg.Stop(); err != nil {
		emit(group[T]{err: err})
		return false
	}
	if ctx.Err() != nil {
		emit(group[T]{err: ctx.Err()})
		return false
	}
	_ = zero
	return true
}

// indexedRows is the random-access view of rows that [OpenIndexed] opens
// (its doc says what it costs). Its type is not exported: users hold it as
// the source.Indexed it is, and Close it.
type indexedRows[T any] struct {
	files  []*file
	units  []unit
	starts []int64 // the index of each unit's first row; one more at the end
	dec    decoder[T]
	mu     sync.Mutex
	cache  []cached[T] // most recently used last
	id     func(context.Context) (string, error)
}

type cached[T any] struct {
	unit int
	g    group[T]
}

// indexedCache is how many decoded row groups an indexedRows keeps.
const indexedCache = 4

func (r *core[T]) indexed() (*indexedRows[T], error) {
	// The files outlive any one call: remote ones are read with a
	// background context, their requests bounded by storage's timeouts.
	paths, err := source.Paths(context.Background(), r.list, ".parquet", r.c.storage...)
	if err != nil {
		return nil, err
	}
	files, err := openAll(context.Background(), paths, &r.c)
	if err != nil {
		return nil, err
	}
	dec, err := r.prepare(files, &r.c)
	if err != nil {
		closeAll(files)
		return nil, err
	}
	units, _ := r.units(files)
	d := &indexedRows[T]{files: files, units: units, dec: dec, starts: make([]int64, len(units)+1), id: r.identity}
	for i, u := range units {
		d.starts[i+1] = d.starts[i] + files[u.file].pf.Metadata().RowGroups[u.group].NumRows
	}
	return d, nil
}

var _ source.Indexed[int] = (*indexedRows[int])(nil)

// Len returns the number of rows.
func (d *indexedRows[T]) Len() int { return int(d.starts[len(d.starts)-1]) }

// Get returns row i. A row that does not fit its column gives its
// positioned error (wrapping errShape), so source.SkipIndexed can skip it.
func (d *indexedRows[T]) Get(i int) (T, error) {
	var zero T
	if i < 0 || i >= d.Len() {
		return zero, source.IndexError(i, d.Len())
	}
	k := sort.Search(len(d.units), func(k int) bool { return d.starts[k+1] > int64(i) })
	g := d.group(k)
	at := int(int64(i) - d.starts[k])
	if at >= len(g.rows) {
		if g.err != nil {
			return zero, g.err
		}
		return zero, fmt.Errorf("parquet: row %d missing from its row group: %w", i, io.ErrUnexpectedEOF)
	}
	if g.bad != nil && g.bad[at] != nil {
		return zero, g.bad[at]
	}
	return g.rows[at], nil
}

func (d *indexedRows[T]) group(k int) group[T] {
	d.mu.Lock()
	for j, c := range d.cache {
		if c.unit == k {
			d.cache = append(slices.Delete(d.cache, j, j+1), c)
			d.mu.Unlock()
			return c.g
		}
	}
	d.mu.Unlock()
	u := d.units[k]
	g := collect(d.dec, d.files[u.file], u.file, u.group)
	d.mu.Lock()
	if len(d.cache) == indexedCache {
		d.cache = slices.Delete(d.cache, 0, 1)
	}
	d.cache = append(d.cache, cached[T]{k, g})
	d.mu.Unlock()
	return g
}

// Identity returns the identity of the files the dataset reads, as the
// sequential readers give it (source.Identifier): a
// checkpoint of source.ReadIndexed over the dataset is refused over files
// of as many rows that are not the same. It reads the files' metadata
// again (a stat, a HEAD request), not their rows.
func (d *indexedRows[T]) Identity(ctx context.Context) (string, error) { return d.id(ctx) }

var _ source.Identifier = (*indexedRows[int])(nil)

// Close closes the files.
func (d *indexedRows[T]) Close() error {
	var first error
	for _, f := range d.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
