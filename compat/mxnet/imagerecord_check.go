package mxnet

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
	"github.com/tensorfeed/tensorfeed/storage"
)

// streamCheck checks the index of each remote .rec file of a pass in file
// order as the records arrive, instead of reading the whole object once
// more before the first record: before the pass, what can be checked
// without reading (checkEntries); then each record must start at the next
// entry, in offset order, of the entries whose offsets fall in the part
// of the file the pass reads (all of them, or those of its shard's byte
// range), and at the end of each file no such entry may be left. The
// records of a file are read back to back, so a record that starts at the
// next entry ends where that entry's predecessor said: over a pass this
// covers every byte of the part read, as the whole check does. A mismatch
// fails the pass before the record is handed on, so no record the index
// does not describe reaches a batch, and none is dropped or repeated
// without an error. Local files are checked whole before the pass
// (validateRec): a page-cache read, and its error names the .idx line.
type streamCheck struct {
	files []*indexedFile // every .rec file of the list, in order
	local []bool         // files[i] is local, checked whole before the pass
	cur   int            // the file of the last record, -1 before the first
	next  int            // the entry of files[cur].sorted the next record must start at
	last  int64          // the offset of the last record read in files[cur], -1 for none
}

// checkIndexes checks the index of every .rec file of c before a pass in
// file order: a local file whole, a remote one as far as it can without
// reading it. It returns the check of the records as they arrive, nil
// when every file is local.
func (it *recIter) checkIndexes(ctx context.Context) (*streamCheck, error) {
	c := it.cfg
	s := &streamCheck{files: make([]*indexedFile, len(c.recPaths)), local: make([]bool, len(c.recPaths)), cur: -1, last: -1}
	remote := false
	for i, p := range c.recPaths {
		f := &indexedFile{path: p, idxPath: c.idxPaths[i]}
		s.files[i] = f
		if s.local[i] = !storage.IsRemote(p); s.local[i] {
			var err error
			if f.size, err = validateRec(ctx, p, it.idx[i], c.storage); err != nil {
				return nil, err
			}
			continue
		}
		remote = true
		o, err := storage.OpenFile(ctx, p, c.storage...)
		if err != nil {
			return nil, err
		}
		f.size = o.Size()
		o.Close()
		f.sorted = sortedEntries(it.idx[i])
		if err := f.checkEntries(); err != nil {
			return nil, err
		}
	}
	if !remote {
		return nil, nil
	}
	// The local files' entries too: a resumed pass finds the file of its
	// first record by counting them.
	for i, f := range s.files {
		if s.local[i] {
			f.sorted = sortedEntries(it.idx[i])
		}
	}
	shardEntries(s.files, c.shardCount, c.shardIdx)
	return s, nil
}

// shardEntries sets lo and hi of each of files, cut as one concatenated
// stream of their sizes: the entries whose offsets fall in the byte range
// of shard index of count (the records that recordio's shard reads).
func shardEntries(files []*indexedFile, count, index int) {
	var total int64
	for _, f := range files {
		total += f.size
	}
	begin, end := inputsplit.ShardRange(total, count, index)
	var at int64 // offset of file i in the concatenation
	for _, f := range files {
		f.lo = f.entryAt(begin - at)
		f.hi = max(f.entryAt(end-at), f.lo)
		at += f.size
	}
}

// entryAt returns the first entry of f.sorted at or after offset off.
func (f *indexedFile) entryAt(off int64) int {
	k, _ := slices.BinarySearchFunc(f.sorted, off, func(e indexed, t int64) int { return cmp.Compare(e.off, t) })
	return k
}

// record checks rec, the next record of the pass (see streamCheck).
func (s *streamCheck) record(rec recordio.Record) error {
	// A record of another file, or of the same file listed again (its
	// offsets start over), starts the next file of the list.
	if s.cur < 0 || rec.File != s.files[s.cur].path || rec.Offset <= s.last {
		resumed := s.cur < 0 && rec.Index > 0
		from := s.cur + 1
		if resumed {
			from = s.fileOf(rec.Index) // a file the list names twice: which time
		}
		i := s.find(rec.File, from)
		if i == len(s.files) && resumed {
			i = s.find(rec.File, 0)
		}
		if i == len(s.files) {
			return fmt.Errorf("mxnet: ImageRecordIter: a record of %s, which is not among the .rec files after %s", rec.File, s.files[max(s.cur, 0)].path)
		}
		f := s.files[i]
		if resumed {
			// A resumed pass: the files before are not read, and this one
			// from the entry of its first record on.
			s.next = max(f.entryAt(rec.Offset), f.lo)
		} else {
			for j := max(s.cur, 0); j < i; j++ {
				if err := s.finish(j); err != nil {
					return err
				}
			}
			s.next = f.lo
		}
		s.cur, s.last = i, -1
	}
	f := s.files[s.cur]
	if s.local[s.cur] {
		return nil // checked whole
	}
	off := rec.Offset
	if k := s.next; k < f.hi && f.sorted[k].off == off {
		s.next++
		s.last = off
		return nil
	} else if k < f.hi && f.sorted[k].off < off {
		if s.last >= 0 {
			return f.indexError(k, f.sorted[k].off, fmt.Sprintf("inside the record at offset %d, which runs to offset %d", s.last, off))
		}
		return f.indexError(k, f.sorted[k].off, fmt.Sprintf("not a record start: the first record read of this part of the file begins at offset %d", off))
	}
	// The record at off is not indexed.
	next := f.size
	if s.next < len(f.sorted) {
		next = f.sorted[s.next].off
	}
	if s.last >= 0 {
		return f.indexError(s.next-1, off, fmt.Sprintf("the record ends at offset %d, but the next indexed record begins at %d: the %d bytes between are not indexed", off, next, next-off))
	}
	k := s.next // the entry after the record, or the last before it
	if k == len(f.sorted) {
		k--
	}
	return f.indexError(k, off, fmt.Sprintf("the record at offset %d is not indexed: the next indexed record begins at %d", off, next))
}

// find returns the first file named path from files[from] on, or
// len(s.files).
func (s *streamCheck) find(path string, from int) int {
	for from < len(s.files) && s.files[from].path != path {
		from++
	}
	return from
}

// fileOf returns the file of the list that holds record n of the pass by
// the entries of each file's part, or 0 when the entries do not reach n.
func (s *streamCheck) fileOf(n int) int {
	for i, f := range s.files {
		if n -= f.hi - f.lo; n < 0 {
			return i
		}
	}
	return 0
}

// end checks, after the last record of a pass, that no entry of the files
// from the last record's on was left unread. A pass that read no record
// is not checked: it may be a pass resumed after its last record.
func (s *streamCheck) end() error {
	if s.cur < 0 {
		return nil
	}
	for j := s.cur; j < len(s.files); j++ {
		if err := s.finish(j); err != nil {
			return err
		}
	}
	return nil
}

// finish checks that the records of file j read by the pass reached every
// entry of its part: the file of the last record, or one the pass went past.
func (s *streamCheck) finish(j int) error {
	f, k, last := s.files[j], s.files[j].lo, int64(-1)
	if s.local[j] {
		return nil // checked whole
	}
	if j == s.cur {
		k, last = s.next, s.last
	}
	if k >= f.hi {
		return nil
	}
	if last >= 0 {
		return f.indexError(k, f.sorted[k].off, fmt.Sprintf("not read: the record at offset %d, the last read of this part of the file, runs over it", last))
	}
	return f.indexError(k, f.sorted[k].off, "not read: no record of this part of the file begins there")
}
