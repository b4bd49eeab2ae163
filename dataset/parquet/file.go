package parquet

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tensorfeed/tensorfeed/storage"
)

const magic = "PAR1"

// file is one opened Parquet file whose footer has been checked.
type file struct {
	path     string
	f        storage.File
	size     int64
	pf       *pq.File
	groups   []pq.RowGroup
	rowStart []int64 // the file's row index of each group's first row
	rows     int64
	dataEnd  int64 // where the footer starts
	reads    *checkedReads
}

func (fi *file) Close() error { return fi.f.Close() }

// guard calls f and turns a panic inside parquet-go on malformed input
// into an error.
func guard(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("parquet-go failed on malformed input: %v", v)
		}
	}()
	return f()
}

// remoteReadBuffer is how many bytes parquet-go reads at once from a
// remote object (one range request each); a local file keeps its default.
const remoteReadBuffer = 1 << 20

// openFile opens path (a local path or a URL, through package storage)
// and checks its magic and footer within the limits of c before
// parquet-go decodes the footer.
func openFile(ctx context.Context, path string, c *config) (_ *file, err error) {
	f, err := storage.OpenFile(ctx, path, c.storage...)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	size := f.Size()
	fi := &file{path: path, f: f, size: size, reads: &checkedReads{f: f}}
	if err := fi.checkFooter(c); err != nil {
		return nil, err
	}
	var pf *pq.File
	err = guard(func() error {
		var err error
		opts := []pq.FileOption{pq.SkipPageIndex(true), pq.SkipBloomFilters(true)}
		if strings.Contains(path, "://") {
			opts = append(opts, pq.ReadBufferSize(remoteReadBuffer))
		}
		pf, err = pq.OpenFile(fi.reads, size, opts...)
		return err
	})
	if err != nil {
		return nil, fileError(path, fi.dataEnd, err, "footer: %v", err)
	}
	fi.pf = pf
	if err := fi.checkGroups(); err != nil {
		return nil, err
	}
	return fi, nil
}

func (fi *file) readAt(b []byte, off int64) error {
	n, err := fi.f.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == io.EOF {
		return fileError(fi.path, off, io.ErrUnexpectedEOF, "%d of %d bytes present", n, len(b))
	}
	return fmt.Errorf("parquet: %s: offset %d: %w", fi.path, off, err)
}

func (fi *file) checkFooter(c *config) error {
	path, size := fi.path, fi.size
	if size < 4 {
		head := make([]byte, size)
		if err := fi.readAt(head, 0); err != nil {
			return err
		}
		if !strings.HasPrefix(magic, string(head)) {
			return fileError(path, 0, nil, "bad magic %q, want %q: not a Parquet file", head, magic)
		}
	}
	if size < 12 {
		return fileError(path, 0, io.ErrUnexpectedEOF,
			"%d bytes: shorter than the two magics and the footer length (12 bytes)", size)
	}
	var head [4]byte
	if err := fi.readAt(head[:], 0); err != nil {
		return err
	}
	if string(head[:]) != magic {
		return fileError(path, 0, nil, "bad magic %q, want %q: not a Parquet file", head[:], magic)
	}
	var tail [8]byte
	if err := fi.readAt(tail[:], size-8); err != nil {
		return err
	}
	switch string(tail[4:]) {
	case magic:
	case "PARE":
		return fileError(path, size-4, nil, "encrypted footer (magic PARE): not supported")
	default:
		return fileError(path, size-4, io.ErrUnexpectedEOF,
			"no %q magic at the end but %q: the file is truncated or not Parquet", magic, tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return fileError(path, size-8, io.ErrUnexpectedEOF,
			"footer length %d is more than the %d bytes between the magics", n, size-12)
	}
	if n > c.maxFooter {
		return fileError(path, size-8, ErrTooLarge,
			"footer length %d larger than the maximum %d (MaxFooterBytes)", n, c.maxFooter)
	}
	fi.dataEnd = size - 8 - n
	footer := make([]byte, n)
	if err := fi.readAt(footer, fi.dataEnd); err != nil {
		return err
	}
	used, cost, err := walkStruct(footer)
	if err != nil {
		return fileError(path, fi.dataEnd, nil, "footer: %v", err)
	}
	if used != len(footer) {
		return fileError(path, fi.dataEnd+int64(used), nil, "footer: %d bytes after its end", len(footer)-used)
	}
	if cost > c.maxMeta {
		return fileError(path, fi.dataEnd, ErrTooLarge,
			"footer would take about %d bytes decoded, more than the maximum %d (MaxMetadataBytes)", cost, c.maxMeta)
	}
	return nil
}

// checkGroups checks that every row group's row count is sane and every
// column chunk lies between the first magic and the footer.
func (fi *file) checkGroups() error {
	md := fi.pf.Metadata()
	fi.groups = fi.pf.RowGroups()
	if len(fi.groups) != len(md.RowGroups) {
		return fileError(fi.path, fi.dataEnd, nil, "footer: %d row groups decoded of %d", len(fi.groups), len(md.RowGroups))
	}
	fi.rowStart = make([]int64, len(md.RowGroups))
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		fi.rowStart[g] = fi.rows
		if rg.NumRows < 0 || rg.NumRows > fi.size {
			// The claim is the footer's: the error points there.
			return posError(fi.path, fi.dataEnd, g, -1, "", nil, fmt.Sprintf("row count %d is impossible in a file of %d bytes", rg.NumRows, fi.size))
		}
		fi.rows += rg.NumRows
		for ci := range rg.Columns {
			if _, _, err := fi.chunkRange(g, ci); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkRange returns the byte range of column chunk ci of row group g.
func (fi *file) chunkRange(g, ci int) (start, end int64, err error) {
	cc := &fi.pf.Metadata().RowGroups[g].Columns[ci]
	md := &cc.MetaData
	start = md.DataPageOffset
	if d := md.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	end = start + md.TotalCompressedSize
	if start < int64(len(magic)) || md.TotalCompressedSize < 0 || end > fi.dataEnd || end < start {
		// The error is at the chunk's start when the file has data there,
		// else at the footer that claims it.
		at := start
		if start < int64(len(magic)) || start >= fi.dataEnd {
			at = fi.dataEnd
		}
		return 0, 0, posError(fi.path, at, g, -1, strings.Join(md.PathInSchema, "."), io.ErrUnexpectedEOF, fmt.Sprintf("column chunk of %d bytes at offset %d is not between the magic and the footer (offset %d)",
			md.TotalCompressedSize, start, fi.dataEnd))
	}
	return start, end, nil
}

// checkPages walks the page headers of column chunk ci of row group g and
// checks each page against the chunk's bytes and the limits of c, before
// parquet-go allocates for them.
func (fi *file) checkPages(g, ci int, c *config) error {
	pc, err := fi.newPageCheck(g, ci, c)
	if err != nil {
		return err
	}
	for pc.pos < pc.end {
		if err := pc.step(); err != nil {
			return err
		}
	}
	return nil
}

// pageCheck checks the page headers of one column chunk in order, a page
// at a time (see step): all at once (checkPages) or as parquet-go reads
// the chunk (checkedReads).
type pageCheck struct {
	fi    *file
	g     int
	c     *config
	md    *format.ColumnMetaData
	col   string // the column's dotted path
	start int64  // the chunk's first byte
	pos   int64  // the next header
	end   int64  // the chunk's end
	total int64  // values of the data pages so far
	// The headers are read through a window of the chunk's bytes, so that
	// a chunk of many small pages is read once, not once per page.
	win   window
	proto thrift.CompactProtocol
	// The header is decoded into h by dec, reading rd, made once for
	// the chunk rather than once a page.
	h    format.PageHeader
	rd   thrift.BytesReader
	dec  *thrift.Decoder
	mu   sync.Mutex // for checkedReads: readers of the same chunk share it
	refs int        // readers that armed it (checkedReads)
	err  error      // the error met, for the reads after it
}

func (fi *file) newPageCheck(g, ci int, c *config) (*pageCheck, error) {
	start, end, err := fi.chunkRange(g, ci)
	if err != nil {
		return nil, err
	}
	md := &fi.pf.Metadata().RowGroups[g].Columns[ci].MetaData
	pc := &pageCheck{fi: fi, g: g, c: c, md: md, col: strings.Join(md.PathInSchema, "."), start: start, pos: start, end: end,
		win: window{fi: fi, end: end, least: windowBytes}}
	switch md.Codec {
	case format.Uncompressed, format.Snappy, format.Gzip, format.Zstd, format.Lz4Raw:
	default:
		return nil, pc.bad(start, nil, "compression %s not supported", md.Codec)
	}
	return pc, nil
}

func (pc *pageCheck) bad(at int64, cause error, format string, args ...any) error {
	return posError(pc.fi.path, at, pc.g, -1, pc.col, cause, fmt.Sprintf(format, args...))
}

// step checks the page header at pos and moves pos past its page.
func (pc *pageCheck) step() error {
	pos, end, md, c, bad := pc.pos, pc.end, pc.md, pc.c, pc.bad
	var err error
	var hlen int
	var buf []byte
	for size := headerBytes; ; size = min(size*16, 1<<20) {
		if buf, err = pc.win.at(pos, size); err != nil {
			return err
		}
		hlen, _, err = walkStruct(buf)
		if err == nil {
			break
		}
		if n := int64(len(buf)); !errors.Is(err, errShort) || n == end-pos || size >= 1<<20 {
			if errors.Is(err, errShort) && n == end-pos {
				return bad(pos, io.ErrUnexpectedEOF, "page header runs past the end of the column chunk")
			}
			return bad(pos, nil, "page header: %v", err)
		}
	}
	if pc.dec == nil {
		pc.rd = pc.proto.NewReaderFromBytes(nil)
		pc.dec = thrift.NewDecoder(pc.rd)
	}
	pc.rd.ResetBytes(buf[:hlen])
	pc.h = format.PageHeader{}
	h := &pc.h
	if err := pc.dec.Decode(h); err != nil {
		return bad(pos, nil, "page header: %v", err)
	}
	data := pos + int64(hlen)
	if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > end-data {
		return bad(pos, io.ErrUnexpectedEOF, "page of %d bytes goes past the end of the column chunk: %d bytes left",
			h.CompressedPageSize, end-data)
	}
	if h.UncompressedPageSize < 0 || int64(h.UncompressedPageSize) > c.maxPage || int64(h.CompressedPageSize) > c.maxPage {
		return bad(pos, ErrTooLarge, "page of %d bytes (%d compressed) larger than the maximum %d (MaxPageBytes)",
			h.UncompressedPageSize, h.CompressedPageSize, c.maxPage)
	}
	values, levels := int64(0), int64(0)
	switch {
	case h.DataPageHeader.Valid:
		values = int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		v2 := &h.DataPageHeaderV2.V
		values = max(int64(v2.NumValues), int64(v2.NumRows), int64(v2.NumNulls))
		levels = int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		if v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 || levels > int64(h.CompressedPageSize) {
			return bad(pos, nil, "levels of %d bytes in a page of %d", levels, h.CompressedPageSize)
		}
		if v2.IsCompressed.Valid && !v2.IsCompressed.V {
			levels = int64(h.CompressedPageSize) // nothing to decompress
		}
	case h.DictionaryPageHeader.Valid:
		values = int64(h.DictionaryPageHeader.V.NumValues)
	}
	if values < 0 || values > c.maxPageValues {
		return bad(pos, ErrTooLarge, "page of %d values, more than the maximum %d (MaxPageValues)", values, c.maxPageValues)
	}
	if !h.DictionaryPageHeader.Valid {
		if pc.total += values; pc.total > c.maxGroupValues {
			return bad(pos, ErrTooLarge, "the column's pages in the row group hold %d values or more, more than the maximum %d (MaxRowGroupValues)",
				pc.total, c.maxGroupValues)
		}
	}
	if md.Codec == format.Snappy && levels < int64(h.CompressedPageSize) {
		// A snappy block starts with its decoded length, for which the
		// decoder allocates.
		head, err := pc.win.at(data+levels, int(min(binary.MaxVarintLen64, int64(h.CompressedPageSize)-levels)))
		if err != nil {
			return err
		}
		n, k := binary.Uvarint(head)
		if k <= 0 {
			return bad(data+levels, nil, "snappy block: bad length header")
		}
		if n > uint64(c.maxPage) {
			return bad(pos, ErrTooLarge, "snappy block claims %d bytes, more than the maximum %d (MaxPageBytes)", n, c.maxPage)
		}
	}
	pc.pos = data + int64(h.CompressedPageSize)
	// After a large page the next header is far: read little more
	// than a header, not a window of bytes that parquet-go reads again.
	pc.win.least = windowBytes
	if h.CompressedPageSize >= windowBytes {
		pc.win.least = headerBytes
	}
	return nil
}

// window holds bytes of a file before end, read in blocks of at least
// least bytes.
type window struct {
	fi    *file
	end   int64
	least int   // the least bytes to read at once (windowBytes or headerBytes)
	off   int64 // the file offset of b[0]
	b     []byte
	own   []byte // what the window reads into (b may be bytes it was lent: see lend)
}

// windowBytes is the least a window reads at once after a small page:
// page headers of a column chunk of small pages are read a block at a
// time.
const windowBytes = 16 << 10

// headerBytes is what a page header usually fits in: the first read of a
// header, and the least a window reads after a large page.
const headerBytes = 512

// at returns the size bytes at pos, or those up to end if fewer.
func (w *window) at(pos int64, size int) ([]byte, error) {
	n := min(int64(size), w.end-pos)
	if w.b != nil && pos >= w.off && pos+n <= w.off+int64(len(w.b)) {
		return w.b[pos-w.off : pos-w.off+n], nil
	}
	m := min(max(n, int64(w.least)), w.end-pos)
	if int64(cap(w.own)) < m {
		w.own = make([]byte, m)
	}
	w.b, w.off = w.own[:m], pos
	if err := w.fi.readAt(w.b, pos); err != nil {
		w.b = nil
		return nil, err
	}
	return w.b[:n], nil
}

// openAll opens every path in order; on an error it closes those opened.
func openAll(ctx context.Context, paths []string, c *config) ([]*file, error) {
	files := make([]*file, 0, len(paths))
	for _, p := range paths {
		fi, err := openFile(ctx, p, c)
		if err != nil {
			closeAll(files)
			return nil, err
		}
		files = append(files, fi)
	}
	return files, nil
}

func closeAll(files []*file) {
	for _, f := range files {
		f.Close()
	}
}

// checkedReads is the file as parquet-go reads it. While a reader of
// columns reads a column chunk it arms the chunk's pageCheck: before bytes
// of the chunk go to parquet-go, every page header up to their end is
// checked, so that parquet-go allocates for no page over the limits.
// The headers are checked in the bytes parquet-go reads, which the
// checks do not read again but for a header cut by the end of a read.
type checkedReads struct {
	f     storage.File
	mu    sync.Mutex
	armed []*pageCheck
}

func (r *checkedReads) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.f.ReadAt(p, off)
	r.mu.Lock()
	var pc *pageCheck
	for _, a := range r.armed {
		if off >= a.start && off < a.end {
			pc = a
			break
		}
	}
	r.mu.Unlock()
	if pc != nil {
		if err := pc.upTo(p[:n], off); err != nil {
			return 0, err
		}
	}
	return n, err
}

// arm returns the armed check of column chunk ci of row group g, armed
// for one more reader: disarm it when done.
func (r *checkedReads) arm(fi *file, g, ci int, c *config) (*pageCheck, error) {
	start, _, err := fi.chunkRange(g, ci)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.armed {
		if a.start == start {
			a.refs++
			return a, nil
		}
	}
	pc, err := fi.newPageCheck(g, ci, c)
	if err != nil {
		return nil, err
	}
	pc.refs = 1
	r.armed = append(r.armed, pc)
	return pc, nil
}

func (r *checkedReads) disarm(pc *pageCheck) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if pc.refs--; pc.refs == 0 {
		r.armed = slices.DeleteFunc(r.armed, func(a *pageCheck) bool { return a == pc })
	}
}

// upTo checks the page headers before the end of b, the bytes of the
// chunk at off that parquet-go reads, reading from b those in it.
func (pc *pageCheck) upTo(b []byte, off int64) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.err != nil {
		return pc.err
	}
	pc.win.b, pc.win.off = b, off
	defer func() { pc.win.b = nil }() // b is parquet-go's
	for pc.pos < min(off+int64(len(b)), pc.end) {
		if pc.err = pc.step(); pc.err != nil {
			return pc.err
		}
	}
	return nil
}

// failed returns the error a check met, if any.
func (pc *pageCheck) failed() error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.err
}
