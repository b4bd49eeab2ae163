package parquet

import (
	"fmt"
	"io"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tensorfeed/tensorfeed/source"
)

// RawRow is one row of a Parquet file with every column's values as
// bytes, for tools that handle any file (the format registry, a lister):
// see [ReadRaw].
type RawRow struct {
	File     string // the file it was read from
	RowGroup int    // its row group in the file
	Index    int64  // its index in the file, from 0
	// Offset is the byte offset of the row's row group in the file (its
	// first column chunk): a row has no offset of its own.
	Offset int64
	// Fields holds each column's values by the column's name (see
	// [ReadRaw]): numbers little-endian (BOOLEAN 1 byte, INT32 and FLOAT
	// 4, INT64 and DOUBLE 8, INT96 12), byte arrays as they are, the
	// values of a list one after the other. A null adds nothing.
	Fields map[string][]byte
}

// ReadRaw returns a reader of every row of the Parquet files that list
// names (see [Read]), in order, each column's values as bytes ([RawRow]). A column is named by
// its path in the schema, shortened to the outermost field that holds
// only it: a list column "image" (stored as image.list.element) is
// "image". It reads any schema, and is slower than [ReadColumns] (a map
// per row, one value at a time): it is meant for tools, not training.
// Malformed input ends the pass with a *tensorfeed.Error; there are no per-row
// errors. The files are opened when a pass starts and closed when it ends.
func ReadRaw(list string, opts ...Option) source.Reader[RawRow] {
	return &reader[RawRow]{name: "parquet-raw", core: core[RawRow]{list: list, c: newConfig(opts), prepare: prepareRaw, passes: &passes{}}}
}

// rawColumn is a leaf column of a file and the name rows carry it by.
type rawColumn struct {
	name  string
	index int
}

// rawColumns returns the leaf columns under c, named by the outermost
// field that holds only one leaf.
func rawColumns(c *pq.Column, name []string, out []rawColumn) []rawColumn {
	if c.Leaf() {
		return append(out, rawColumn{name: strings.Join(name, "."), index: c.Index()})
	}
	kids := c.Columns()
	if len(kids) == 1 && len(name) > 0 {
		return rawColumns(kids[0], name, out) // keep the outer name
	}
	for _, k := range kids {
		out = rawColumns(k, append(name[:len(name):len(name)], k.Name()), out)
	}
	return out
}

func prepareRaw(files []*file, c *config) (decoder[RawRow], error) {
	cols := make([][]rawColumn, len(files))
	for fi, f := range files {
		cols[fi] = rawColumns(f.pf.Root(), nil, nil)
	}
	return func(f *file, fi, g int, _ bool, put func(group[RawRow]) bool) bool {
		return put(decodeRaw(f, g, cols[fi], c))
	}, nil
}

func decodeRaw(f *file, g int, cols []rawColumn, c *config) group[RawRow] {
	var out group[RawRow]
	if err := groupCheck(f, g, c, cols); err != nil {
		out.err = err
		return out
	}
	want := f.pf.Metadata().RowGroups[g].NumRows
	var offset int64 = -1
	if len(f.pf.Metadata().RowGroups[g].Columns) > 0 {
		offset, _, _ = f.chunkRange(g, 0)
	}
	for k, col := range cols {
		row := int64(-1)
		buf := make([]pq.Value, valueBuf)
		err := f.eachPage(g, col.index, func(page pq.Page) (bool, error) {
			return false, eachValue(page, buf, func(v pq.Value) error {
				if v.RepetitionLevel() == 0 {
					row++
					if row >= want {
						return fmt.Errorf("more rows than the %d of the row group's metadata", want)
					}
					if k == 0 {
						out.rows = append(out.rows, RawRow{File: f.path, RowGroup: g, Index: f.rowStart[g] + row,
							Offset: offset, Fields: make(map[string][]byte, len(cols))})
					} else if row >= int64(len(out.rows)) {
						return fmt.Errorf("more rows than the row group's first column")
					}
				} else if row < 0 {
					return fmt.Errorf("the column starts in the middle of a row")
				}
				fields := out.rows[row].Fields
				b, ok := fields[col.name]
				if b = v.AppendBytes(b); !ok && b == nil {
					b = []byte{}
				}
				fields[col.name] = b
				return nil
			})
		})
		if err == nil && row+1 != int64(len(out.rows)) {
			err = fmt.Errorf("the column holds %d rows, the row group %d", row+1, len(out.rows))
		}
		if err != nil {
			off, _, _ := f.chunkRange(g, col.index) // the column chunk's start
			out.rows = nil
			out.err = posError(f.path, off, g, f.rowStart[g]+max(row, 0), col.name, err, err.Error())
			return out
		}
	}
	if got := int64(len(out.rows)); got != want {
		out.rows = nil
		out.err = posError(f.path, offset, g, -1, "", io.ErrUnexpectedEOF, fmt.Sprintf("the row group holds %d rows, its metadata says %d", got, want))
	}
	return out
}
