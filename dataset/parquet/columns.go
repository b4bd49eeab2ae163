package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// Column asks for one column of a file as a tensor field of a fixed
// shape: a scalar column for an empty shape (or [1]), a list column whose
// every row holds exactly the shape's element count, or, for Uint8, a
// byte-array column whose every value has that many bytes. Make one with
// [Float32], [Int32], [Int64] or [Uint8].
type Column struct {
	name  string       // the column's name, or its dotted path in nested schemas
	dtype sample.DType // Float32 (FLOAT), Int32 (INT32), Int64 (INT64) or Uint8 (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY)
	shape []int        // the shape of one row's value; empty for a scalar
}

func column(name string, dt sample.DType, shape []int) Column {
	if name == "" {
		panic("parquet: a column needs a name")
	}
	for _, d := range shape {
		if d < 1 {
			panic(fmt.Sprintf("parquet: column %q: shape %v has a dimension below 1", name, shape))
		}
	}
	return Column{name: name, dtype: dt, shape: shape}
}

// Float32 asks for a FLOAT column (a scalar, or a list of
// sample.Elems(shape) values per row) as float32 values of the given
// shape. It panics when name is empty or a dimension is below 1.
func Float32(name string, shape ...int) Column { return column(name, sample.Float32, shape) }

// Int32 asks for an INT32 column as int32 values of the given shape.
func Int32(name string, shape ...int) Column { return column(name, sample.Int32, shape) }

// Int64 asks for an INT64 column as int64 values of the given shape.
func Int64(name string, shape ...int) Column { return column(name, sample.Int64, shape) }

// Uint8 asks for a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY column whose every
// value holds sample.Elems(shape) bytes (raw pixels, say), as uint8 values
// of the given shape.
func Uint8(name string, shape ...int) Column { return column(name, sample.Uint8, shape) }

// Row is one row of the columns asked of [ReadColumns]: the value of
// column i is F32[i], I32[i], I64[i] or U8[i], whichever its DType says
// (the others are nil at i). Each value is a slice of exactly the
// column's element count, owned by the row (unless the reader was made
// with [ReuseBuffer]).
type Row struct {
	File  string // the file it was read from
	Index int64  // its index in the file, from 0
	F32   [][]float32
	I32   [][]int32
	I64   [][]int64
	U8    [][]uint8
}

// ReadColumns returns a reader of the given columns of the Parquet files
// that list names (see [Read]), one [Row] per row, in order. The files are
// opened when a pass starts and closed when it ends. It is resumable as
// Read's reader is; a state of other columns is refused.
//
// A pass starts by checking every file's magic and footer, and every
// column asked for: a column missing from a file, of another physical type
// than its DType, or nested more than one list deep, is an error wrapping
// ErrColumnType that names the file, the column, its type and the type
// asked for. A row whose value does not fit the column's shape (a list of
// another length, a null) is a *tensorfeed.Error naming the file, the row
// group, the row and the column, wrapping errShape: a bad record that
// a policy ([OnBad]) may skip. A page that cannot be read ends the pass
// with an error naming the first row not read, after the rows before it.
// It panics when cols is empty.
func ReadColumns(list string, cols []Column, opts ...Option) source.Reader[Row] {
	if len(cols) == 0 {
		panic("parquet: ReadColumns needs at least one column")
	}
	cols = append([]Column(nil), cols...)
	r := &reader[Row]{name: "parquet-columns", cols: cols}
	r.core = core[Row]{list: list, c: newConfig(opts), passes: &passes{}, prepare: func(files []*file, c *config) (decoder[Row], error) {
		return prepareColumns(files, cols, c)
	}}
	return r
}

// Fields returns one sink field per column of cols, named after it, with
// its shape and element type, in the order of the columns: pass them (or a
// part of them as labels) to sink.New to batch the rows of ReadColumns
// into tensors.
func Fields(cols []Column) []sink.Field[Row] {
	fields := make([]sink.Field[Row], len(cols))
	for i, c := range cols {
		shape := c.shape
		switch c.dtype {
		case sample.Float32:
			fields[i] = sink.Slice(c.name, shape, func(r Row) []float32 { return r.F32[i] })
		case sample.Int32:
			fields[i] = sink.Slice(c.name, shape, func(r Row) []int32 { return r.I32[i] })
		case sample.Int64:
			fields[i] = sink.Slice(c.name, shape, func(r Row) []int64 { return r.I64[i] })
		case sample.Uint8:
			fields[i] = sink.Slice(c.name, shape, func(r Row) []uint8 { return r.U8[i] })
		default:
			panic(fmt.Sprintf("parquet: column %q: element type %v not supported", c.name, c.dtype))
		}
	}
	return fields
}

// eachPage calls fn with each page of column index of row group g, in
// order, releasing the page after it unless fn keeps it (returns true:
// rows hold its values, see bulk). A panic of parquet-go is an error.
func (f *file) eachPage(g, index int, fn func(pq.Page) (keep bool, err error)) error {
	return guard(func() error {
		pages := f.groups[g].ColumnChunks()[index].Pages()
		defer pages.Close()
		for {
			page, err := pages.ReadPage()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			keep, err := fn(page)
			if !keep {
				pq.Release(page)
			}
			if err != nil {
				return err
			}
		}
	})
}

// eachValue calls fn with each value of page, read len(buf) at a time.
func eachValue(page pq.Page, buf []pq.Value, fn func(pq.Value) error) error {
	vr := page.Values()
	for {
		m, err := vr.ReadValues(buf)
		for _, v := range buf[:m] {
			if err := fn(v); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// leaf is a column asked for, resolved in one file.
type leaf struct {
	col   Column
	index int // the leaf column's index in the file
	elems int
	list  bool
	maxDf int
}

func kindFor(dt sample.DType) []pq.Kind {
	switch dt {
	case sample.Float32:
		return []pq.Kind{pq.Float}
	case sample.Int32:
		return []pq.Kind{pq.Int32}
	case sample.Int64:
		return []pq.Kind{pq.Int64}
	case sample.Uint8:
		return []pq.Kind{pq.ByteArray, pq.FixedLenByteArray}
	}
	return nil
}

func resolve(f *file, c Column) (leaf, error) {
	bad := func(format string, args ...any) error {
		return posError(f.path, -1, -1, -1, c.name, ErrColumnType, fmt.Sprintf(format, args...))
	}
	col := f.pf.Root()
	for _, part := range strings.Split(c.name, ".") {
		if col = col.Column(part); col == nil {
			return leaf{}, bad("no such column in the file (asked for %s)", c.dtype)
		}
	}
	for !col.Leaf() {
		kids := col.Columns()
		if len(kids) != 1 {
			return leaf{}, bad("a group of %d fields, not a list or a value (asked for %s)", len(kids), c.dtype)
		}
		col = kids[0]
	}
	kind := col.Type().Kind()
	ok := false
	for _, k := range kindFor(c.dtype) {
		ok = ok || k == kind
	}
	if !ok {
		return leaf{}, bad("the file holds %s, asked for %s", kind, c.dtype)
	}
	l := leaf{col: c, index: col.Index(), elems: sample.Elems(c.shape), maxDf: col.MaxDefinitionLevel()}
	switch rep := col.MaxRepetitionLevel(); {
	case rep == 1 && c.dtype != sample.Uint8:
		l.list = true
	case rep == 0:
		if c.dtype != sample.Uint8 && l.elems != 1 {
			return leaf{}, bad("a scalar %s column, asked for shape %v", kind, c.shape)
		}
	default:
		return leaf{}, bad("%s nested in %d lists, asked for %s of shape %v", kind, rep, c.dtype, c.shape)
	}
	return l, nil
}

func prepareColumns(files []*file, cols []Column, c *config) (decoder[Row], error) {
	leaves := make([][]leaf, len(files))
	for fi, f := range files {
		for _, col := range cols {
			l, err := resolve(f, col)
			if err != nil {
				return nil, err
			}
			leaves[fi] = append(leaves[fi], l)
		}
	}
	return func(f *file, fi, g int, whole bool, put func(group[Row]) bool) bool {
		return decodeColumns(f, g, leaves[fi], c, whole, put)
	}, nil
}

// valueBuf is how many values a decoder reads from a page at a time.
const valueBuf = 4096

// partBytes is about how many bytes of values a part of a row group
// holds (see decodeColumns): few enough that the consumer copies them
// out of the cache the decoder left them in.
const partBytes = 64 << 10

// errColumnEnd is what a column's next returns when the column has no
// row left, errMoreRows what its end returns when it has one.
var (
	errColumnEnd = errors.New("no row left in the column")
	errMoreRows  = errors.New("more rows than the row group's metadata")
)

// decodeColumns decodes row group g of f, the columns of leaves side by
// side a row at a time, and hands the rows to put in parts of about
// partBytes of values, each as soon as it is decoded: a part's values are
// still in the cache when the consumer copies them out, and memory holds
// a part and the page of each column it is read from, not the row group.
// A row whose value does not fit its column is bad (the part's bad); a
// malformed page ends the row group with an error after the rows before
// it. With ReuseBuffer, each part's rows are those of the part before:
// their values are valid until the next row is read. When whole, the
// parts go into one group, put once.
func decodeColumns(f *file, g int, leaves []leaf, c *config, whole bool, put func(group[Row]) bool) bool {
	want := f.pf.Metadata().RowGroups[g].NumRows
	n := len(leaves)
	cols := make([]colStream, n)
	rowBytes := 0
	for k, l := range leaves {
		cols[k] = newColumn(f, g, k, l, c)
		rowBytes += l.elems * l.col.dtype.Size()
	}
	defer func() {
		for _, col := range cols {
			col.close()
		}
	}()
	part := int64(max(1, min(chunkRows, partBytes/max(rowBytes, 1))))
	heads := rowHeads{n: n, whole: whole, recycle: c.reuse && !whole}
	var out group[Row]
	for row := int64(0); row < want && out.err == nil; {
		if !whole {
			out = group[Row]{}
		}
		// The rows from base on are the part's.
		base := len(out.rows)
		out.rows = heads.add(out.rows, f, g, row, min(part, want-row), want-row)
		if out.bad != nil {
			out.bad = append(out.bad, make([]error, len(out.rows)-len(out.bad))...)
		}
		for j := base; j < len(out.rows); j++ {
			r := &out.rows[j]
			for k, col := range cols {
				bad, err := col.next(r, want-row)
				if err != nil {
					out.rows = out.rows[:j]
					if out.bad != nil {
						out.bad = out.bad[:j]
					}
					out.err = columnError(f, g, row, want, leaves[k], err)
					break
				}
				if bad != "" && (out.bad == nil || out.bad[j] == nil) {
					if out.bad == nil {
						out.bad = make([]error, len(out.rows), cap(out.rows))
					}
					out.bad[j] = posError(f.path, -1, g, f.rowStart[g]+row, leaves[k].col.name, errShape, bad)
				}
			}
			if out.err != nil {
				break
			}
			row++
		}
		if row == want && out.err == nil {
			for k, col := range cols {
				if err := col.end(); err != nil {
					out.err = columnError(f, g, row, want, leaves[k], err)
					break
				}
			}
		}
		for _, col := range cols {
			out.pages = col.passed(out.pages)
		}
		if !whole && (!put(out) || out.err != nil) {
			return false
		}
	}
	if want == 0 {
		for k, col := range cols {
			if err := col.end(); err != nil {
				out.err = columnError(f, g, 0, want, leaves[k], err)
				break
			}
		}
		return put(out) && out.err == nil
	}
	if whole {
		return put(out) && out.err == nil
	}
	return true
}

// columnError is the error met in column l of row group g at row row.
func columnError(f *file, g int, row, want int64, l leaf, err error) error {
	if errors.Is(err, ErrFormat) { // a page's check: it says where
		return err
	}
	switch err {
	case errColumnEnd:
		return posError(f.path, -1, g, f.rowStart[g]+row, l.col.name, io.ErrUnexpectedEOF,
			fmt.Sprintf("the column holds %d rows, the row group's metadata says %d", row, want))
	case errMoreRows:
		return posError(f.path, -1, g, f.rowStart[g]+row, l.col.name, nil,
			fmt.Sprintf("more rows than the %d of the row group's metadata", want))
	}
	return posError(f.path, -1, g, f.rowStart[g]+row, l.col.name, err, err.Error())
}

// rowHeads makes the rows of decodeColumns and the per-column slices of
// their values, chunkRows rows at a time, so that a row costs no
// allocation of its own; with recycle, it makes those of one part and
// hands them out again for every part, so that they stay in the cache.
type rowHeads struct {
	n       int  // columns
	whole   bool // the rows of every part go into one slice
	recycle bool
	part    []Row // with recycle, the rows of the part before
	f32     [][]float32
	i32     [][]int32
	i64     [][]int64
	u8      [][]uint8
}

// add appends to rows m rows from row row of row group g of f, left rows
// being left in the row group.
func (h *rowHeads) add(rows []Row, f *file, g int, row, m, left int64) []Row {
	n := h.n
	if h.recycle && int64(len(h.part)) >= m {
		rs := h.part[:m:m]
		for j := range rs {
			rs[j].Index = f.rowStart[g] + row + int64(j)
			clear(rs[j].F32)
			clear(rs[j].I32)
			clear(rs[j].I64)
			clear(rs[j].U8)
		}
		return rs
	}
	if int64(cap(rows)-len(rows)) < m {
		grow := m
		if h.whole {
			// Doubled, up to the rows left: append's gentler growth
			// copies the rows many times over in a large row group.
			grow = max(m, min(left, int64(max(len(rows), chunkRows))))
		}
		rows = growRows(rows, int(grow))
	}
	if int64(len(h.f32)) < m*int64(n) {
		k := int(max(m, min(left, chunkRows))) * n
		h.f32, h.i32, h.i64, h.u8 = make([][]float32, k), make([][]int32, k), make([][]int64, k), make([][]uint8, k)
	}
	for j := range m {
		rows = append(rows, Row{File: f.path, Index: f.rowStart[g] + row + j,
			F32: h.f32[:n:n], I32: h.i32[:n:n], I64: h.i64[:n:n], U8: h.u8[:n:n]})
		h.f32, h.i32, h.i64, h.u8 = h.f32[n:], h.i32[n:], h.i64[n:], h.u8[n:]
	}
	if h.recycle {
		h.part = rows
	}
	return rows
}

// colStream reads the values of one column chunk of a row group, a row at a
// time (see colReader).
type colStream interface {
	// next sets the column's value in r, the next row, left rows being
	// left in the row group. It returns why the row is bad (a value that
	// does not fit the column), or an error: errColumnEnd when the
	// column has no row left, or the page's.
	next(r *Row, left int64) (bad string, err error)
	// end returns an error unless the column has no row left.
	end() error
	// passed appends to pages those the column has read past whose
	// values rows may hold (ReuseBuffer), and forgets them.
	passed(pages []pq.Page) []pq.Page
	close()
}

func newColumn(f *file, g, k int, l leaf, c *config) colStream {
	reuse := c.reuse
	switch l.col.dtype {
	case sample.Float32:
		return &colReader[float32]{f: f, g: g, l: l, c: c, reuse: reuse,
			at:    func(r *Row) *[]float32 { return &r.F32[k] },
			plain: func(p pq.Page) []float32 { d := p.Data(); return d.Float() },
			add:   func(s []float32, v pq.Value) []float32 { return append(s, v.Float()) }}
	case sample.Int32:
		return &colReader[int32]{f: f, g: g, l: l, c: c, reuse: reuse,
			at:    func(r *Row) *[]int32 { return &r.I32[k] },
			plain: func(p pq.Page) []int32 { d := p.Data(); return d.Int32() },
			add:   func(s []int32, v pq.Value) []int32 { return append(s, v.Int32()) }}
	case sample.Int64:
		return &colReader[int64]{f: f, g: g, l: l, c: c, reuse: reuse,
			at:    func(r *Row) *[]int64 { return &r.I64[k] },
			plain: func(p pq.Page) []int64 { d := p.Data(); return d.Int64() },
			add:   func(s []int64, v pq.Value) []int64 { return append(s, v.Int64()) }}
	default: // sample.Uint8, as resolve allows
		return &colReader[uint8]{f: f, g: g, l: l, c: c, reuse: reuse, bytes: true,
			at:  func(r *Row) *[]uint8 { return &r.U8[k] },
			add: func(s []uint8, v pq.Value) []uint8 { return append(s, v.ByteArray()...) }}
	}
}

// colReader reads one column chunk. It holds one page: the typed values
// of a plain page of numbers as parquet-go decoded them, or a copy of the
// values of any other page (dictionary encoded, byte arrays), with the
// page's repetition and definition levels (one per value, nulls
// included; empty when the column has none). A page whose rows each hold
// their e values, none null, is uniform: row j of it is values j*e to
// (j+1)*e, handed out as they are (with ReuseBuffer, or when they are a
// copy) or copied once, with no check per value. Other rows are read
// value by value.
type colReader[T float32 | int32 | int64 | uint8] struct {
	f     *file
	g     int
	l     leaf
	c     *config
	check *pageCheck              // the chunk's, armed while the column is read
	at    func(*Row) *[]T         // the column's value in a row
	plain func(pq.Page) []T       // a plain page's values; nil for byte arrays
	add   func([]T, pq.Value) []T // appends a value's elements
	bytes bool                    // values are byte arrays: sizes holds their lengths
	reuse bool                    // ReuseBuffer
	pages pq.Pages                // nil before the first page
	page  pq.Page                 // the page vals belong to; nil when vals is a copy
	kept  []pq.Page               // pages read past whose values rows hold (ReuseBuffer)
	rep   []byte                  // the page's levels
	def   []byte                  //
	vals  []T                     // the page's values' elements, nulls left out
	sizes []int32                 // with bytes, each value's length
	buf   []pq.Value              // values read at a time from a page that is not plain
	block []T                     // where rows that are not slices of vals get their values (see carve)
	uni   bool                    // the page is uniform
	n     int                     // the page's levels
	i     int                     // the next level
	v     int                     // the next value (not null)
	x     int                     // the element of vals the next value starts at
	ended bool                    // no page left
}

func (c *colReader[T]) close() {
	if c.page != nil && !c.reuse {
		pq.Release(c.page)
	}
	if c.pages != nil {
		c.pages.Close()
	}
	if c.check != nil {
		c.f.reads.disarm(c.check)
	}
}

func (c *colReader[T]) passed(pages []pq.Page) []pq.Page {
	pages = append(pages, c.kept...)
	clear(c.kept)
	c.kept = c.kept[:0]
	return pages
}

// values returns how many values (not null) the page holds.
func (c *colReader[T]) values() int {
	if c.bytes {
		return len(c.sizes)
	}
	return len(c.vals)
}

// advance moves to the next page that holds levels, or sets ended.
func (c *colReader[T]) advance() error {
	for !c.ended && c.i == c.n {
		if c.v != c.values() {
			return fmt.Errorf("the page holds %d values, its levels say %d", c.values(), c.v)
		}
		if c.page != nil {
			if c.reuse {
				c.kept = append(c.kept, c.page)
			} else {
				pq.Release(c.page)
			}
			c.page = nil
		}
		if err := guard(c.load); err != nil {
			if c.check != nil && c.check.failed() != nil {
				return c.check.failed()
			}
			return err
		}
	}
	return nil
}

// load reads the next page, or sets ended.
func (c *colReader[T]) load() error {
	if c.pages == nil {
		// The page headers are checked as parquet-go reads them.
		check, err := c.f.reads.arm(c.f, c.g, c.l.index, c.c)
		if err != nil {
			return err
		}
		c.check = check
		c.pages = c.f.groups[c.g].ColumnChunks()[c.l.index].Pages()
	}
	c.i, c.v, c.x = 0, 0, 0
	c.rep, c.def, c.vals, c.sizes, c.n = nil, nil, nil, nil, 0
	page, err := c.pages.ReadPage()
	if err == io.EOF {
		c.ended = true
		return nil
	}
	if err != nil {
		return err
	}
	if c.plain != nil && page.Dictionary() == nil {
		c.page, c.vals = page, c.plain(page)
		c.rep, c.def = page.RepetitionLevels(), page.DefinitionLevels()
		c.n = len(c.vals)
		switch {
		case len(c.def) > 0:
			c.n = len(c.def)
		case len(c.rep) > 0:
			c.n = len(c.rep)
		}
		if (len(c.rep) > 0 && len(c.rep) != c.n) || (len(c.def) > 0 && len(c.def) != c.n) {
			return fmt.Errorf("page of %d repetition and %d definition levels", len(c.rep), len(c.def))
		}
	} else {
		err = c.copyValues(page)
		pq.Release(page)
		if err != nil {
			return err
		}
	}
	c.uni = c.uniform()
	return nil
}

// copyValues reads the values of page one at a time into vals, sizes and
// the levels.
func (c *colReader[T]) copyValues(page pq.Page) error {
	if c.buf == nil {
		c.buf = make([]pq.Value, valueBuf)
	}
	vr := page.Values()
	for {
		m, err := vr.ReadValues(c.buf)
		for _, v := range c.buf[:m] {
			c.rep = append(c.rep, byte(v.RepetitionLevel()))
			c.def = append(c.def, byte(v.DefinitionLevel()))
			if v.IsNull() {
				continue
			}
			before := len(c.vals)
			c.vals = c.add(c.vals, v)
			if c.bytes {
				c.sizes = append(c.sizes, int32(len(c.vals)-before))
			}
		}
		c.n += m
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// uniform reports whether every row of the page holds exactly e values,
// none null, starting at a level of its own: a row of a list column starts
// at every e-th level and nowhere else.
func (c *colReader[T]) uniform() bool {
	e, n := c.l.elems, c.n
	if len(c.def) > 0 && bytes.Count(c.def, []byte{byte(c.l.maxDf)}) != n {
		return false
	}
	if c.bytes {
		for _, s := range c.sizes {
			if int(s) != e {
				return false
			}
		}
		return len(c.sizes) == n
	}
	if len(c.vals) != n {
		return false
	}
	if !c.l.list {
		return e == 1
	}
	if n%e != 0 || bytes.Count(c.rep, []byte{0}) != n/e {
		return false
	}
	for j := 0; j < n; j += e {
		if c.rep[j] != 0 {
			return false
		}
	}
	return true
}

func (c *colReader[T]) next(r *Row, left int64) (string, error) {
	if err := c.advance(); err != nil {
		return "", err
	}
	if c.ended {
		return "", errColumnEnd
	}
	if len(c.rep) > 0 && c.rep[c.i] != 0 {
		return "", errors.New("the column starts in the middle of a row")
	}
	e := c.l.elems
	slot := c.at(r)
	cur := 0
	if c.uni {
		vals := c.vals[c.x : c.x+e : c.x+e]
		if c.reuse || c.page == nil {
			*slot = vals
		} else {
			*slot = c.carve(left)
			copy(*slot, vals)
		}
		step := 1
		if c.l.list {
			step = e
		}
		c.i, c.v, c.x, cur = c.i+step, c.v+step, c.x+e, e
		if !c.l.list || c.i < c.n {
			return "", nil
		}
	}
	// Value by value, from the next page where a list goes on.
	bad := ""
	maxDf := byte(c.l.maxDf)
	first := cur == 0
	for {
		for ; c.i < c.n; c.i++ {
			rep, df := byte(0), maxDf
			if len(c.rep) > 0 {
				rep = c.rep[c.i]
			}
			if len(c.def) > 0 {
				df = c.def[c.i]
			}
			if rep == 0 && !first {
				break
			}
			first = false
			if df < maxDf {
				// A null value makes the row bad; a null or empty list
				// holds no element, which the length check finds.
				if bad == "" && (!c.l.list || rep > 0 || df == maxDf-1) {
					bad = "null value"
				}
				continue
			}
			if c.v >= c.values() {
				return "", fmt.Errorf("the page's levels say more than its %d values", c.values())
			}
			size := 1
			if c.bytes {
				size = int(c.sizes[c.v])
			}
			if cur+size <= e {
				if *slot == nil {
					*slot = c.carve(left)
				}
				copy((*slot)[cur:cur+size], c.vals[c.x:c.x+size])
			}
			cur += size
			c.x += size
			c.v++
		}
		if !c.l.list || c.i < c.n || c.ended {
			break
		}
		if err := c.advance(); err != nil {
			return "", err
		}
	}
	if bad == "" && cur != e {
		if c.l.list {
			bad = fmt.Sprintf("list of %d values, want %d (shape %v)", cur, e, c.l.col.shape)
		} else {
			bad = fmt.Sprintf("%d bytes, want %d (shape %v)", cur, e, c.l.col.shape)
		}
	}
	return bad, nil
}

func (c *colReader[T]) end() error {
	if err := c.advance(); err != nil {
		return err
	}
	if !c.ended {
		return errMoreRows
	}
	return nil
}

// carve returns a slice of e elements of block, first made for the rows
// left in the row group, chunkRows at most, when it has fewer: memory
// follows the rows that arrive.
func (c *colReader[T]) carve(left int64) []T {
	e := c.l.elems
	if len(c.block) < e {
		c.block = make([]T, e*int(min(left, chunkRows)))
	}
	s := c.block[:e:e]
	c.block = c.block[e:]
	return s
}
