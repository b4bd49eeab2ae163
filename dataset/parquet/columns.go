package parquet

import (
	"bytes"
	"fmt"
	"io"
	"slices"
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
// a policy ([OnBad]) may skip. It panics when cols is empty.
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
	return func(f *file, fi, g int) group[Row] { return decodeColumns(f, g, leaves[fi], c) }, nil
}

// valueBuf is how many values a decoder reads from a page at a time.
const valueBuf = 4096

func decodeColumns(f *file, g int, leaves []leaf, c *config) group[Row] {
	var out group[Row]
	want := f.pf.Metadata().RowGroups[g].NumRows
	if err := groupCheck(f, g, c, leaves); err != nil {
		out.err = err
		return out
	}
	n := len(leaves)
	for k, l := range leaves {
		rows, err := decodeLeaf(f, g, k, n, l, &out, want, c)
		if err == nil && rows != int64(len(out.rows)) {
			err = posError(f.path, -1, g, f.rowStart[g]+rows, l.col.name, io.ErrUnexpectedEOF, fmt.Sprintf("the column holds %d rows, the row group %d", rows, len(out.rows)))
		}
		if err != nil {
			out.rows, out.err = out.rows[:0], err
			out.bad = nil
			return out
		}
	}
	if got := int64(len(out.rows)); got != want {
		out.rows, out.bad = out.rows[:0], nil
		out.err = posError(f.path, -1, g, -1, "", io.ErrUnexpectedEOF, fmt.Sprintf("the row group holds %d rows, its metadata says %d", got, want))
	}
	return out
}

func decodeLeaf(f *file, g, k, n int, l leaf, out *group[Row], want int64, c *config) (rows int64, err error) {
	d := &leafDecoder{f: f, g: g, k: k, n: n, l: l, out: out, want: want, row: -1, reuse: c.reuse}
	if k == 0 && out.rows == nil {
		out.rows = make([]Row, 0, min(want, chunkRows))
	}
	buf := make([]pq.Value, valueBuf)
	err = f.eachPage(g, l.index, func(page pq.Page) (bool, error) {
		d.kept = false
		err := d.page(page, buf)
		if d.kept {
			out.pages = append(out.pages, page)
		}
		return d.kept, err
	})
	if err != nil {
		return d.row + 1, posError(f.path, -1, g, f.rowStart[g]+max(d.row, 0), l.col.name, err, err.Error())
	}
	d.finish()
	return d.row + 1, nil
}

// leafDecoder decodes column k (of n) of row group g into out's rows; the
// first column makes the rows.
type leafDecoder struct {
	f       *file
	g, k, n int
	l       leaf
	out     *group[Row]
	want    int64
	row     int64 // the row being filled, from 0 in the row group; -1 before the first
	cur     int   // elements of the current row seen so far
	// Blocks the values of rows filled value by value (see bulk) and the
	// first column's per-row slices are carved from, chunkRows rows at a
	// time, so that memory follows the rows that arrive.
	f32  []float32
	i32  []int32
	i64  []int64
	hf32 [][]float32
	hi32 [][]int32
	hi64 [][]int64
	hu8  [][]uint8
	// e repetition levels of 1 and definition levels of the maximum: the
	// levels of the values after a row's first in a row without nulls.
	ones, full []byte
	reuse      bool // ReuseBuffer
	kept       bool // rows hold values of the page being decoded
}

// page decodes one page: its typed values in bulk when it is plain
// (not dictionary) encoded numbers, else one value at a time.
func (d *leafDecoder) page(page pq.Page, buf []pq.Value) error {
	if page.Dictionary() == nil {
		data := page.Data()
		switch d.l.col.dtype {
		case sample.Float32:
			return bulk(d, data.Float(), page.RepetitionLevels(), page.DefinitionLevels(), func(r *Row) *[]float32 { return &r.F32[d.k] }, &d.f32)
		case sample.Int32:
			return bulk(d, data.Int32(), page.RepetitionLevels(), page.DefinitionLevels(), func(r *Row) *[]int32 { return &r.I32[d.k] }, &d.i32)
		case sample.Int64:
			return bulk(d, data.Int64(), page.RepetitionLevels(), page.DefinitionLevels(), func(r *Row) *[]int64 { return &r.I64[d.k] }, &d.i64)
		}
	}
	return eachValue(page, buf, d.value)
}

// bulk decodes a page's values (the non-null ones, in order) with its
// repetition and definition levels (one per value, nulls included; empty
// when the column has none). A run of rows that each hold their e values,
// none null, is copied out of the page at once into a block of its own
// that the rows share: append does not clear memory that it fills, and one
// copy serves the run. (Keeping the page instead costs more: parquet-go's
// page buffers are larger than their values.) With ReuseBuffer the rows
// are slices of the page's values, not a copy, and the page is kept
// (d.kept) until the consumer is past the row group. Other rows are
// filled value by value in slices of block (see carve).
func bulk[T float32 | int32 | int64](d *leafDecoder, vals []T, rep, def []byte, at func(*Row) *[]T, block *[]T) error {
	count := len(vals)
	switch {
	case len(def) > 0:
		count = len(def)
	case len(rep) > 0:
		count = len(rep)
	}
	if (len(rep) > 0 && len(rep) != count) || (len(def) > 0 && len(def) != count) {
		return fmt.Errorf("page of %d repetition and %d definition levels", len(rep), len(def))
	}
	maxDf := byte(d.l.maxDf)
	e := d.l.elems
	var row []T
	if d.row >= 0 {
		row = carve(d, at(&d.out.rows[d.row]), block)
	}
	k := 0 // the next value
	for i := 0; i < count; i++ {
		r, df := byte(0), maxDf
		if len(rep) > 0 {
			r = rep[i]
		}
		if len(def) > 0 {
			df = def[i]
		}
		if r == 0 {
			m := 0 // whole rows from i
			for i+(m+1)*e <= count && k+(m+1)*e <= len(vals) && d.wholeRow(rep, def, i+m*e, e, maxDf) {
				m++
			}
			if m > 0 {
				run := vals[k : k+m*e]
				if d.reuse {
					d.kept = true
				} else {
					run = append([]T(nil), run...)
				}
				for j := range m {
					if err := d.start(); err != nil {
						return err
					}
					*at(&d.out.rows[d.row]) = run[j*e : (j+1)*e : (j+1)*e]
					d.cur = e
				}
				k += m * e
				i += m*e - 1
				continue
			}
			if err := d.start(); err != nil {
				return err
			}
			row = carve(d, at(&d.out.rows[d.row]), block)
		} else if d.row < 0 {
			return fmt.Errorf("the column starts in the middle of a row")
		}
		if df < maxDf {
			d.null(r, df)
			continue
		}
		if k >= len(vals) {
			return fmt.Errorf("the page's levels say more than its %d values", len(vals))
		}
		if d.cur < e {
			row[d.cur] = vals[k]
		}
		d.cur++
		k++
	}
	if k != len(vals) {
		return fmt.Errorf("the page holds %d values, its levels say %d", len(vals), k)
	}
	return nil
}

// carve returns the current row's slice of the column, first giving it
// one of block (made for the rows left, chunkRows at most) when it has
// none.
func carve[T any](d *leafDecoder, slot *[]T, block *[]T) []T {
	if *slot == nil {
		e := d.l.elems
		if len(*block) < e {
			*block = make([]T, e*int(min(d.want-d.row, chunkRows)))
		}
		*slot, *block = (*block)[:e:e], (*block)[e:]
	}
	return *slot
}

// wholeRow reports whether the levels from i hold one row of exactly e
// values, none null: the row starts at i, continues to i+e-1 and the next
// row (if any) starts at i+e.
func (d *leafDecoder) wholeRow(rep, def []byte, i, e int, maxDf byte) bool {
	if len(rep) == 0 { // a scalar column: a row is one value
		return e == 1 && (len(def) == 0 || def[i] == maxDf)
	}
	if rep[i] != 0 {
		return false
	}
	if i+e < len(rep) && rep[i+e] != 0 {
		return false
	}
	if len(d.ones) != e {
		d.ones, d.full = bytes.Repeat([]byte{1}, e), bytes.Repeat([]byte{maxDf}, e)
	}
	return bytes.Equal(rep[i+1:i+e], d.ones[1:]) && (len(def) == 0 || bytes.Equal(def[i:i+e], d.full))
}

// value decodes one value of the column.
func (d *leafDecoder) value(v pq.Value) error {
	if v.RepetitionLevel() == 0 {
		if err := d.start(); err != nil {
			return err
		}
	} else if d.row < 0 {
		return fmt.Errorf("the column starts in the middle of a row")
	}
	if v.IsNull() {
		d.null(byte(v.RepetitionLevel()), byte(v.DefinitionLevel()))
		return nil
	}
	e := d.l.elems
	if d.cur >= e && d.l.col.dtype != sample.Uint8 {
		d.cur++
		return nil
	}
	r := &d.out.rows[d.row]
	switch d.l.col.dtype {
	case sample.Float32:
		carve(d, &r.F32[d.k], &d.f32)[d.cur] = v.Float()
	case sample.Int32:
		carve(d, &r.I32[d.k], &d.i32)[d.cur] = v.Int32()
	case sample.Int64:
		carve(d, &r.I64[d.k], &d.i64)[d.cur] = v.Int64()
	case sample.Uint8:
		b := v.ByteArray()
		d.cur += len(b)
		if d.cur == e {
			r.U8[d.k] = append([]uint8(nil), b...)
		}
		return nil
	}
	d.cur++
	return nil
}

// null handles a null at repetition level r and definition level df: a
// null value is a bad row; a null or empty list holds no element, which
// finish finds when the row ends.
func (d *leafDecoder) null(r, df byte) {
	if !d.l.list || r > 0 || int(df) == d.l.maxDf-1 {
		d.shapeErr(d.row, "null value")
	}
}

func (d *leafDecoder) shapeErr(r int64, msg string) {
	out := d.out
	if out.bad == nil {
		out.bad = make([]error, len(out.rows), cap(out.rows))
	}
	for int64(len(out.bad)) <= r {
		out.bad = append(out.bad, nil)
	}
	if out.bad[r] == nil {
		out.bad[r] = posError(d.f.path, -1, d.g, d.f.rowStart[d.g]+r, d.l.col.name, errShape, msg)
	}
}

// finish ends the current row: one of another length is a bad row.
func (d *leafDecoder) finish() {
	out, row, e := d.out, d.row, d.l.elems
	if row >= 0 && d.cur != e && (out.bad == nil || int64(len(out.bad)) <= row || out.bad[row] == nil) {
		if d.l.list {
			d.shapeErr(row, fmt.Sprintf("list of %d values, want %d (shape %v)", d.cur, e, d.l.col.shape))
		} else {
			d.shapeErr(row, fmt.Sprintf("%d bytes, want %d (shape %v)", d.cur, e, d.l.col.shape))
		}
	}
}

// start ends the current row and starts the next.
func (d *leafDecoder) start() error {
	d.finish()
	d.row++
	d.cur = 0
	row, want, n, k, out := d.row, d.want, d.n, d.k, d.out
	if row >= want {
		return fmt.Errorf("more rows than the %d of the row group's metadata", want)
	}
	rest := int(min(want-row, chunkRows)) // rows a new block is for
	if k == 0 {
		if len(d.hf32) < n {
			d.hf32, d.hi32, d.hi64, d.hu8 = make([][]float32, n*rest), make([][]int32, n*rest),
				make([][]int64, n*rest), make([][]uint8, n*rest)
		}
		if len(out.rows) == cap(out.rows) {
			// Doubled, up to the rows left: append's gentler growth
			// copies the rows many times over in a large row group.
			out.rows = slices.Grow(out.rows, int(min(want-row, int64(max(len(out.rows), chunkRows)))))
		}
		out.rows = append(out.rows, Row{File: d.f.path, Index: d.f.rowStart[d.g] + row,
			F32: d.hf32[:n:n], I32: d.hi32[:n:n], I64: d.hi64[:n:n], U8: d.hu8[:n:n]})
		d.hf32, d.hi32, d.hi64, d.hu8 = d.hf32[n:], d.hi32[n:], d.hi64[n:], d.hu8[n:]
	} else if row >= int64(len(out.rows)) {
		return fmt.Errorf("more rows than the row group's first column")
	}
	if out.bad != nil && int64(len(out.bad)) <= row {
		out.bad = append(out.bad, nil)
	}
	return nil
}
