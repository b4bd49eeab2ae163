package recordio

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Indexed is one or more .rec files, each with its .idx, read as one
// random-access dataset (source.Indexed[[]byte]) to read with
// source.ReadIndexed, which shuffles and shards it by index: index i is
// record i of the files' indexes one after the other, in the order
// OpenIndexed found the files. Each record is read with one ReadAt of its
// file, a range request for a remote one (or a read of the local copy,
// through a storage.WithCache given to Storage). It is safe for concurrent
// use; Close it when done.
type Indexed struct {
	files  []*RandomReader
	open   []storage.File
	starts []int // starts[k]: the index of file k's first record; one more entry, Len()
	// paths are the .rec and .idx files and sopts the options they were
	// opened with, for Identity.
	paths []string
	sopts []storage.Option
}

var _ source.Indexed[[]byte] = (*Indexed)(nil)

// OpenIndexed opens the .rec files that list names (a path or URL, a
// ';'-separated list, a directory or a glob, as source.Paths expands it)
// and reads their indexes: the .idx of each is its name with ".rec"
// replaced by ".idx". ctx bounds the opening and every later read of the
// files (a remote record is read with one range request). opts are the
// package's options; only Storage applies.
//
// The indexes are not checked against the files: an entry that is not a
// record start gives an error when it is read. Call [Indexed.Validate]
// first to know that every entry is a record and every record has an entry.
// A list that names no file gives source.Paths's error; a .rec or .idx that
// cannot be opened, the storage's error (storage.ErrNotFound for a missing
// .idx, naming its URL); a malformed .idx, a *tensorfeed.Error.
func OpenIndexed(ctx context.Context, list string, opts ...Option) (_ *Indexed, err error) {
	var c config
	option.Apply(&c, opts)
	names, err := source.Paths(ctx, list, ".rec", c.storage...)
	if err != nil {
		return nil, err
	}
	x := &Indexed{starts: make([]int, 1, len(names)+1), sopts: c.storage}
	defer func() {
		if err != nil {
			x.Close()
		}
	}()
	for _, rec := range names {
		idxPath := strings.TrimSuffix(rec, ".rec") + ".idx"
		idx, err := ReadIndex(ctx, idxPath, opts...)
		if err != nil {
			return nil, err
		}
		f, err := storage.OpenFile(ctx, rec, c.storage...)
		if err != nil {
			return nil, err
		}
		x.open = append(x.open, f)
		x.files = append(x.files, NewRandomReader(rec, f, f.Size(), idx))
		x.paths = append(x.paths, rec, idxPath)
		x.starts = append(x.starts, x.starts[len(x.starts)-1]+idx.Len())
	}
	return x, nil
}

// Len returns the number of records of all files.
func (x *Indexed) Len() int { return x.starts[len(x.starts)-1] }

// Get returns the payload of record i in a new slice. An index outside
// [0, Len()) is an error wrapping source.ErrIndex; a record that is not
// where its entry says is a *tensorfeed.Error naming its file.
func (x *Indexed) Get(i int) ([]byte, error) {
	if uint(i) >= uint(x.Len()) {
		return nil, source.IndexError(i, x.Len())
	}
	k, j := x.locate(i)
	rr := x.files[k]
	return rr.AppendAt(nil, rr.idx.Entry(j).Offset)
}

// Locate says where record i is: its .rec file, its position in that
// file's index and its index key. It panics if i is outside [0, Len()).
func (x *Indexed) Locate(i int) (file string, record int, key int64) {
	if uint(i) >= uint(x.Len()) {
		panic(fmt.Sprintf("recordio: Indexed.Locate(%d) out of range [0, %d)", i, x.Len()))
	}
	k, j := x.locate(i)
	return x.files[k].name, j, x.files[k].idx.Entry(j).Key
}

// locate returns the file that holds record i and the record's position
// in that file's index.
func (x *Indexed) locate(i int) (file, record int) {
	k := sort.SearchInts(x.starts, i+1) - 1
	return k, i - x.starts[k]
}

// Validate checks every index against its .rec file (see [ValidateIndex]),
// in order, and returns the first error: a stale or damaged index fails
// here, naming it, rather than lose or repeat records later.
func (x *Indexed) Validate() error {
	for k, f := range x.files {
		if err := ValidateIndex(x.open[k], f.size, f.name, f.idx); err != nil {
			return err
		}
	}
	return nil
}

// Close closes every file.
func (x *Indexed) Close() error {
	var err error
	for _, f := range x.open {
		err = errors.Join(err, f.Close())
	}
	return err
}
