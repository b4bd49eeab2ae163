package recordio

import (
	"context"
	"fmt"
	"io"
	"iter"
	"math"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Record is one record of a RecordIO file.
type Record struct {
	File   string // path or URL of the file it was read from
	Offset int64  // byte offset of its first part header in File
	Index  int    // its position in the pass, from 0, counted over all files of the pass
	Data   []byte // the payload, with the parts of a split record joined
}

// Option configures Open, ReadIndex and OpenIndexed.
type Option = option.Option[config]

type config struct {
	count, index int
	reuse        bool
	get          func(n int) []byte // Buffers'
	storage      []storage.Option
}

// Storage sets the options of package storage through which files are
// opened. Every path this package opens (Open, ReadIndex, OpenIndexed) may be a local path, an s3://bucket/key object or an
// http(s):// URL (see [storage.Open]); opts say how to reach it (endpoint,
// credentials, retries, read-ahead, a cache). Without it, URLs are opened
// with storage's defaults. The storage's errors name the URL and the byte
// range.
func Storage(opts ...storage.Option) Option {
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// shard makes a reader yield only shard index of count, as MXNet's
// InputSplit does for distributed training (its num_parts and part_index):
// the files are treated as one concatenated byte stream, cut into count
// equal byte ranges (inputsplit.ShardRange), and a record belongs to the
// range that holds its first byte. It is not public: a dataset is sharded
// by index (source.ShardIndex over an Indexed) or as a stream by the
// pipeline; only MXNet's ImageRecordIter asks for it, through
// inputsplit.RecordIO. It panics if count < 1 or index is not in
// [0, count).
func shard(count, index int) Option {
	if count < 1 || index < 0 || index >= count {
		panic(fmt.Sprintf("recordio: shard(%d, %d): need count >= 1 and 0 <= index < count", count, index))
	}
	return option.New(func(c *config) { c.count, c.index = count, index })
}

func init() {
	inputsplit.RecordIO = func(count, index int) any { return shard(count, index) }
}

// ReuseBuffer makes every Record of a pass share one buffer: Data is valid
// only until the next record is read. Use it when each record is consumed
// (decoded, copied) before the next one is asked for, and never with a stage
// that holds on to samples (Shuffle, Buffered, Cache, batching of raw data).
func ReuseBuffer() Option { return option.New(func(c *config) { c.reuse = true }) }

// Buffers makes Open read each record's payload straight into a buffer
// from get: get(n) returns a slice of length n, usually one the caller
// recycles, and Data, which is that slice, belongs to the caller, as
// without options. It saves the copy that a reader of recycled buffers
// would make after ReuseBuffer. A record split into parts may outgrow its
// first part's buffer and a part over 1 MiB is read in chunks, so such a
// Data is a slice of its own (get is never asked for more than 1 MiB on
// the word of a header). It takes the place of ReuseBuffer.
func Buffers(get func(n int) []byte) Option {
	return option.New(func(c *config) { c.get = get })
}

// Open returns a reader over the records of the files that list names:
// a path or a URL (see [Storage]), or several separated by ';', a
// directory (its .rec files) or a glob, as source.Paths expands it. Each
// pass expands the list, then opens the files one at a time, in order, with
// the pass's context, and closes each before the next. A malformed file
// ends the pass with a *tensorfeed.Error naming the file and byte offset; a
// list that names no file, with source.Paths's error.
func Open(list string, opts ...Option) source.Reader[Record] {
	c := config{count: 1}
	option.Apply(&c, opts)
	return &files{list: list, c: c, core: streamfile.New("recordio", "records", kind(list, c), 1)}
}

// files is the reader of Open. It is source.Resumable (see
// resume.go).
type files struct {
	list string
	c    config
	core streamfile.Stream
}

// All starts a pass over the files (see Open).
func (fs *files) All(ctx context.Context) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		p := fs.core.Start(ctx)
		paths, err := fs.core.ListPaths(p.Ctx, fs.list, ".rec", fs.c.storage, "file", false)
		var spans []span
		if err == nil {
			spans, err = fs.spans(p.Ctx, p.Log, paths)
		}
		if err != nil {
			yield(Record{}, err)
			return
		}
		if from := fs.core.At; fs.core.From.Exact {
			p.Mark(marks.Pack(from[0], from[1]))
			p.Log.Debug("recordio resume", zap.Int64("file", from[0]), zap.Int64("offset", from[1]), zap.Int64("record", p.N))
		}
		var buf []byte
		for i, path := range paths {
			sp := spans[i]
			off, exact, read := fs.core.StartIn(i)
			if !read {
				continue
			}
			if exact {
				sp.lo = off
			}
			if sp.lo >= sp.hi {
				continue
			}
			if !fs.readFile(p, i, path, sp, exact, &buf, yield) {
				return
			}
		}
	}
}

// span is the byte range [lo, hi) of one file whose record starts belong to
// the pass.
type span struct{ lo, hi int64 }

// spans gives each file the range of offsets at which its records of this
// shard start. Unsharded, that is the whole file.
func (fs *files) spans(ctx context.Context, log *zap.Logger, paths []string) ([]span, error) {
	spans := make([]span, len(paths))
	if fs.c.count == 1 {
		for i := range spans {
			spans[i] = span{0, math.MaxInt64}
		}
		return spans, nil
	}
	sizes := make([]int64, len(paths))
	var total int64
	for i, p := range paths {
		o, err := storage.OpenFile(ctx, p, fs.c.storage...)
		if err != nil {
			return nil, err
		}
		sizes[i] = o.Size()
		total += o.Size()
		o.Close()
	}
	begin, end := inputsplit.ShardRange(total, fs.c.count, fs.c.index)
	var at int64 // offset of file i in the concatenation
	for i, size := range sizes {
		lo, hi := max(begin-at, 0), min(end-at, size)
		if lo < hi {
			spans[i] = span{lo, hi}
		}
		at += size
	}
	log.Debug("recordio shard",
		zap.Int("count", fs.c.count), zap.Int("index", fs.c.index),
		zap.Int64("begin", begin), zap.Int64("end", end), zap.Int64("total", total))
	return spans, nil
}

// readFile yields the records of one file that start in sp. With exact,
// sp.lo is the offset of a record (a resumed pass), else a record is
// looked for from sp.lo on. It reports whether the pass goes on.
func (fs *files) readFile(p *streamfile.Pass, fi int, path string, sp span, exact bool, buf *[]byte,
	yield func(Record, error) bool) bool {
	f, err := storage.OpenFile(p.Ctx, path, fs.c.storage...)
	if err != nil {
		yield(Record{}, err)
		return false
	}
	defer f.Close()
	start := sp.lo
	if exact && start > 0 {
		if size := f.Size(); start > size {
			// A state changed by hand, or taken of a longer file: say
			// which of its numbers is wrong instead of failing a seek.
			yield(Record{}, fs.core.Refuse("pos[1]", fmt.Sprintf("offset %d is past the end of %s (%d bytes)", start, path, size)))
			return false
		}
		if _, err := f.Seek(start, io.SeekStart); err != nil {
			yield(Record{}, err)
			return false
		}
	} else if start > 0 {
		start, err = syncAt(f, sp.lo)
		if err == io.EOF || (err == nil && start >= sp.hi) {
			return true // no record starts in this file's share
		}
		if err != nil {
			yield(Record{}, fmt.Errorf("recordio: %s: %w", path, err))
			return false
		}
		if _, err := f.Seek(start, io.SeekStart); err != nil {
			yield(Record{}, err)
			return false
		}
	}
	p.Log.Debug("recordio open", zap.String("file", path), zap.Int64("from", start), zap.Int64("to", sp.hi))
	rd := NewReader(f, path)
	rd.base = start
	rd.reuse = fs.c.reuse && fs.c.get == nil
	rd.get = fs.c.get
	if rd.reuse {
		rd.buf = *buf
		defer func() { *buf = rd.buf }()
	}
	for rd.inputOffset() < sp.hi {
		if err := p.Stopped(); err != nil {
			yield(Record{}, err)
			return false
		}
		data, err := rd.Next()
		if err == io.EOF {
			return true
		}
		if err != nil {
			yield(Record{}, err)
			return false
		}
		rec := Record{File: path, Offset: rd.Offset(), Index: int(p.N), Data: data}
		if !p.Good(marks.Pack(int64(fi), rd.inputOffset())) {
			continue // dropped by a replay
		}
		if !yield(rec, nil) {
			return false
		}
	}
	return true
}
