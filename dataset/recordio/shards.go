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

// ErrNoShards is wrapped by the error of OpenShards when its patterns name
// no shard.
var ErrNoShards = errors.New("recordio: no shards")

// ShardSet is a set of .rec shards, each with its .idx, read as one
// random-access dataset (source.Indexed[[]byte]): index i is record i of
// the shards' indexes one after the other, in the order OpenShards found
// the shards. Each record is read with one ReadAt of its shard, a range
// request for a remote one (or a read of the local copy, through a
// storage.WithCache given to Storage). It is safe for concurrent use; Close
// it when done.
type ShardSet struct {
	files  []*IndexedFile
	starts []int // starts[k]: the index of shard k's first record; one more entry, Len()
}

var _ source.Indexed[[]byte] = (*ShardSet)(nil)

// OpenShards opens a set of RecordIO shards as one dataset. Each pattern
// is a .rec file's path or URL, or a glob of them (storage.List syntax: a
// local filepath.Glob pattern, or s3://bucket/ followed by a key glob such
// as train-*.rec); a glob's matches come in lexical order, the patterns in
// the order given. Every shard's index is its name with ".rec" replaced by
// ".idx", read and checked against the shard with ValidateIndex before
// OpenShards returns, so that a stale or damaged index fails here, naming
// it, rather than lose or repeat records later. opts are the package's
// options; only Storage applies.
//
// Patterns that match nothing give an error wrapping ErrNoShards; a shard
// or an index that cannot be opened, the storage's error (storage.ErrNotFound
// for a missing .idx, naming its URL); an index that does not describe its
// shard, a *tensorfeed.Error.
func OpenShards(ctx context.Context, patterns []string, opts ...Option) (_ *ShardSet, err error) {
	var c config
	option.Apply(&c, opts)
	var names []string
	for _, p := range patterns {
		if !strings.ContainsAny(p, "*?[") {
			names = append(names, p)
			continue
		}
		matches, err := storage.List(ctx, p, c.storage...)
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%w match %s", ErrNoShards, p)
		}
		names = append(names, matches...)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no pattern given", ErrNoShards)
	}
	set := &ShardSet{starts: make([]int, 1, len(names)+1)}
	defer func() {
		if err != nil {
			set.Close()
		}
	}()
	for _, name := range names {
		f, err := OpenIndexedContext(ctx, name, "", opts...)
		if err != nil {
			return nil, err
		}
		set.files = append(set.files, f)
		if err := f.Validate(); err != nil {
			return nil, err
		}
		set.starts = append(set.starts, set.starts[len(set.starts)-1]+f.Len())
	}
	return set, nil
}

// Len returns the number of records of all shards.
func (s *ShardSet) Len() int { return s.starts[len(s.starts)-1] }

// Get returns the payload of record i in a new slice. An index outside
// [0, Len()) is an error wrapping source.ErrIndex; a record that is not
// where its entry says is a *tensorfeed.Error naming its shard.
func (s *ShardSet) Get(i int) ([]byte, error) {
	if uint(i) >= uint(s.Len()) {
		return nil, source.IndexError(i, s.Len())
	}
	k, j := s.Locate(i)
	return s.files[k].Get(j)
}

// Locate returns the shard that holds record i (its position in Shards)
// and the record's position in that shard's index. It panics if i is
// outside [0, Len()).
func (s *ShardSet) Locate(i int) (shard, record int) {
	if uint(i) >= uint(s.Len()) {
		panic(fmt.Sprintf("recordio: ShardSet.Locate(%d) out of range [0, %d)", i, s.Len()))
	}
	k := sort.SearchInts(s.starts, i+1) - 1
	return k, i - s.starts[k]
}

// Key returns the index key of record i. It panics if i is outside
// [0, Len()).
func (s *ShardSet) Key(i int) int64 {
	k, j := s.Locate(i)
	return s.files[k].Index().Entry(j).Key
}

// Shards returns the shards in order, each opened with its index. They
// belong to the set: Close closes them.
func (s *ShardSet) Shards() []*IndexedFile { return append([]*IndexedFile(nil), s.files...) }

// Close closes every shard.
func (s *ShardSet) Close() error {
	var err error
	for _, f := range s.files {
		err = errors.Join(err, f.Close())
	}
	return err
}
