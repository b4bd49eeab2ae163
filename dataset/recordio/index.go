package recordio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/storage"
)

// indexEntry is one line of an .idx file: a record's key (Key) and the byte
// offset of its first part header in the .rec file (Offset). [Index.Entry]
// returns it; the type is not exported.
type indexEntry struct {
	Key    int64
	Offset int64
}

// Index is the content of an .idx file, as MXNet's MXIndexedRecordIO writes
// it: one "key\tpos\n" line per record. Keys are integers, as im2rec and
// MXNet's default key type make them; they follow the .lst order and need
// be neither sorted nor contiguous. An Index is read-only once built and safe
// for concurrent use.
type Index struct {
	entries []indexEntry
	byKey   map[int64]int
	sorted  []int64 // the offsets, ascending: a record ends where the next begins
	// name and lines say where each entry came from, for errors: the .idx
	// file, and the 1-based line and byte offset of each entry's line. A
	// built index (newIndex) has no name, and entry i is "entry i".
	name  string
	lines []linePos
}

// linePos is where an entry was read from in its .idx file.
type linePos struct {
	line int
	off  int64
}

// newIndex builds an index from entries, kept in the given order. It returns
// an error wrapping ErrFormat for a duplicate key or a negative offset.
func newIndex(entries []indexEntry) (*Index, error) {
	ix := &Index{
		entries: slices.Clone(entries),
		byKey:   make(map[int64]int, len(entries)),
		sorted:  make([]int64, len(entries)),
	}
	for i, e := range entries {
		if e.Offset < 0 {
			return nil, fmt.Errorf("%w: index entry %d: negative offset %d", ErrFormat, i, e.Offset)
		}
		if j, dup := ix.byKey[e.Key]; dup {
			return nil, fmt.Errorf("%w: index entries %d and %d: duplicate key %d", ErrFormat, j, i, e.Key)
		}
		ix.byKey[e.Key] = i
		ix.sorted[i] = e.Offset
	}
	slices.Sort(ix.sorted)
	return ix, nil
}

// ReadIndex reads an .idx file, a local path or a URL (see [Storage]; the
// other options do not apply); ctx bounds the reading. Lines hold a key and
// an offset separated by a tab (or other white space, as dmlc-core's reader
// accepts); blank lines are ignored. A malformed line, a duplicate key or
// a negative offset gives a *tensorfeed.Error with the line's number and
// byte offset.
func ReadIndex(ctx context.Context, path string, opts ...Option) (*Index, error) {
	var c config
	option.Apply(&c, opts)
	f, err := storage.OpenFile(ctx, path, c.storage...)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseIndex(f, path)
}

// parseIndex reads an index from r (see ReadIndex); name names the input
// in errors.
func parseIndex(r io.Reader, name string) (*Index, error) {
	sc := bufio.NewScanner(r)
	var entries []indexEntry
	var lines []linePos
	line := 0
	var off int64
	seen := make(map[int64]int)
	fail := func(format string, args ...any) error {
		e := formatError(name, off, -1, nil, fmt.Sprintf(format, args...))
		e.Line = line
		return e
	}
	for ; sc.Scan(); off += int64(len(sc.Bytes())) + 1 {
		line++
		fields := bytes.Fields(sc.Bytes())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, fail("want \"key\\tpos\", got %d fields", len(fields))
		}
		key, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil {
			return nil, fail("bad key %q", fields[0])
		}
		pos, err := strconv.ParseInt(string(fields[1]), 10, 64)
		if err != nil || pos < 0 {
			return nil, fail("bad offset %q", fields[1])
		}
		if prev, dup := seen[key]; dup {
			return nil, fail("duplicate key %d (first on line %d)", key, prev)
		}
		seen[key] = line
		entries = append(entries, indexEntry{Key: key, Offset: pos})
		lines = append(lines, linePos{line: line, off: off})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			line++
			e := formatError(name, off, -1, err, fmt.Sprintf("longer than %d bytes", bufio.MaxScanTokenSize))
			e.Line = line
			return nil, e
		}
		return nil, &tensorfeed.Error{Path: name, Offset: off, Record: -1, Line: line + 1, Err: fmt.Errorf("recordio: %w", err)}
	}
	ix, err := newIndex(entries)
	if err != nil {
		return nil, err
	}
	ix.name, ix.lines = name, lines
	return ix, nil
}

// where says where entry i came from: the .idx file, the byte offset and
// number of its line, and "line 3"; for an index built by newIndex, "", -1,
// 0 and "entry 2".
func (ix *Index) where(i int) (file string, off int64, line int, at string) {
	if ix.lines == nil {
		return "", -1, 0, fmt.Sprintf("entry %d", i)
	}
	p := ix.lines[i]
	return ix.name, p.off, p.line, fmt.Sprintf("line %d", p.line)
}

// Len returns the number of entries.
func (ix *Index) Len() int { return len(ix.entries) }

// Entry returns the i-th entry, in file order.
func (ix *Index) Entry(i int) indexEntry { return ix.entries[i] }

// Lookup returns the offset of the record with the given key.
func (ix *Index) Lookup(key int64) (offset int64, ok bool) {
	i, ok := ix.byKey[key]
	if !ok {
		return 0, false
	}
	return ix.entries[i].Offset, true
}

// next returns the smallest indexed offset greater than off, or -1.
func (ix *Index) next(off int64) int64 {
	i, _ := slices.BinarySearch(ix.sorted, off+1)
	if i == len(ix.sorted) {
		return -1
	}
	return ix.sorted[i]
}

// writeTo writes the index in .idx format, "key\tpos\n" per entry, in a
// single Write call (AppendIndexLine is how a writer of .idx files makes
// each line).
func (ix *Index) writeTo(w io.Writer) (int64, error) {
	var buf []byte
	for _, e := range ix.entries {
		buf = AppendIndexLine(buf, e.Key, e.Offset)
	}
	n, err := w.Write(buf)
	return int64(n), err
}

// AppendIndexLine appends one .idx line, "key\tpos\n", to dst.
func AppendIndexLine(dst []byte, key, pos int64) []byte {
	dst = strconv.AppendInt(dst, key, 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, pos, 10)
	return append(dst, '\n')
}
