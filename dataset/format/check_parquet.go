package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	pq "github.com/parquet-go/parquet-go"
	"github.com/tensorfeed/tensorfeed"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// maxSummaryColumns bounds the columns a Parquet summary names.
const maxSummaryColumns = 20

// checkParquet reads a Parquet file to its end through parquet.ReadRaw,
// which checks the magics, the footer and every page header against the
// reader's limits before anything is decoded, then decodes every page of
// every row group. A row group that fails is reported with its position
// (row group, column, byte offset) and, under OnBad, the check goes on with
// the next row group; damage to the magics or the footer ends it. The
// summary gives the rows, the row groups and the leaf columns with their
// types.
//
// Memory holds one decoded row group (ReadRaw's rows) and the footer.
func checkParquet(ctx context.Context, c *checker, stdout io.Writer, opts []parquet.Option) error {
	path := c.path
	raw := parquet.ReadRaw(path, append(slices.Clip(opts), parquet.Storage(c.sopts...))...)
	var (
		src     source.Reader[parquet.RawRow] = raw
		meta    *parquetMeta
		rows    int64
		payload int64
		last    = -1 // the last row group reported
	)
	// loadMeta reads the footer once the reader has accepted it: after a
	// row, or an error about a row group.
	loadMeta := func() error {
		if meta != nil {
			return nil
		}
		m, err := readParquetMeta(ctx, path, c.sopts)
		meta = m
		return err
	}
	for {
		var failed error
		for r, err := range src.All(ctx) {
			if err != nil {
				if parquet.RowGroup(err) < 0 {
					return err // the file, its magics or its footer
				}
				failed = err
				break
			}
			rows++
			for _, b := range r.Fields {
				payload += int64(len(b))
			}
		}
		if failed == nil {
			break
		}
		if parquet.RowGroup(failed) <= last {
			// Found again on the next pass's opening (a row count or a
			// column chunk range the footer gets wrong): the rest of the
			// file cannot be read.
			return nil
		}
		if err := loadMeta(); err != nil {
			return err
		}
		last = parquet.RowGroup(failed)
		if !c.report(meta.place(failed)) || last+1 >= len(meta.rowStart) {
			return nil
		}
		st, err := source.StateOf(raw, 0, meta.rowStart[last+1])
		if err != nil {
			return err
		}
		if src, err = source.ResumeFrom(raw, st); err != nil {
			return err
		}
	}
	if c.bad() > 0 {
		return nil
	}
	if err := loadMeta(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: Parquet: %d rows in %s, %d value bytes; %s\n",
		path, rows, plural(len(meta.rowStart), "row group"), payload, meta.columns)
	return nil
}

// plural formats n and a noun, with an s when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// parquetMeta is what check takes from a footer the reader has accepted.
type parquetMeta struct {
	rowStart []int64 // the file's row index of each row group's first row
	// chunks holds, per row group, each column chunk's dotted path in the
	// schema and its first byte.
	chunks  [][]parquetChunk
	columns string // the leaf columns and their types, for the summary
}

type parquetChunk struct {
	path  string
	start int64
}

// readParquetMeta opens the file with parquet-go to read its footer. It
// is called only once parquet.ReadRaw has checked the same footer against
// its limits and decoded it, so it takes no more memory than the reader
// did; a panic of parquet-go is an error all the same.
func readParquetMeta(ctx context.Context, path string, sopts []storage.Option) (m *parquetMeta, err error) {
	f, err := openFile(ctx, path, sopts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		if v := recover(); v != nil {
			m, err = nil, fmt.Errorf("parquet-go failed on the footer: %v", v)
		}
	}()
	pf, err := pq.OpenFile(f, f.Size(), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	md := pf.Metadata()
	m = &parquetMeta{rowStart: make([]int64, len(md.RowGroups)), chunks: make([][]parquetChunk, len(md.RowGroups))}
	var n int64
	for g, rg := range md.RowGroups {
		m.rowStart[g] = n
		n += rg.NumRows
		for _, cc := range rg.Columns {
			start := cc.MetaData.DataPageOffset
			if d := cc.MetaData.DictionaryPageOffset; d > 0 && d < start {
				start = d
			}
			m.chunks[g] = append(m.chunks[g], parquetChunk{path: strings.Join(cc.MetaData.PathInSchema, "."), start: start})
		}
	}
	m.columns = describeColumns(pf.Root())
	return m, nil
}

// describeColumns lists the leaf columns under root as "name TYPE", named
// as parquet.ReadRaw names them (a list column by its outer field), with
// "optional" or "repeated" when the column is not required.
func describeColumns(root *pq.Column) string {
	var cols []string
	var walk func(c *pq.Column, name []string, repeated bool)
	walk = func(c *pq.Column, name []string, repeated bool) {
		repeated = repeated || c.Repeated()
		if c.Leaf() {
			s := fmt.Sprintf("%s %s", strings.Join(name, "."), c.Type())
			switch {
			case repeated:
				s += " repeated"
			case c.Optional():
				s += " optional"
			}
			cols = append(cols, s)
			return
		}
		kids := c.Columns()
		if len(kids) == 1 && len(name) > 0 {
			walk(kids[0], name, repeated)
			return
		}
		for _, k := range kids {
			walk(k, append(name[:len(name):len(name)], k.Name()), repeated)
		}
	}
	walk(root, nil, false)
	if len(cols) == 0 {
		return "no columns"
	}
	s := plural(len(cols), "column") + ": "
	if len(cols) > maxSummaryColumns {
		return s + strings.Join(cols[:maxSummaryColumns], ", ") + fmt.Sprintf(" and %d more", len(cols)-maxSummaryColumns)
	}
	return s + strings.Join(cols, ", ")
}

// place gives err's position a byte offset when it has none: the first
// byte of the column chunk it names, or of its row group.
func (m *parquetMeta) place(err error) error {
	var e *tensorfeed.Error
	g := parquet.RowGroup(err)
	if !errors.As(err, &e) || e.Offset >= 0 || g < 0 || g >= len(m.chunks) || len(m.chunks[g]) == 0 {
		return err
	}
	c := *e
	chunks := m.chunks[g]
	c.Offset = chunks[0].start
	for _, ch := range chunks {
		if e.Member != "" && (ch.path == e.Member || strings.HasPrefix(ch.path, e.Member+".")) {
			c.Offset = ch.start
			break
		}
	}
	return &c
}
