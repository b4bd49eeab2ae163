package recordio

import (
	"context"
	"fmt"
	"io"
	"iter"
	"math"
	"os"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/source"
)

// Record is one record of a RecordIO file.
type Record struct {
	File   string // path of the file it was read from
	Offset int64  // byte offset of its first part header in File
	Index  int    // its position in the pass, from 0, counted over all files of the pass
	Data   []byte // the payload, with the parts of a split record joined
}

// Option configures Open and Records.
type Option interface{ apply(*options) }

type options struct {
	numParts, partIndex int
	reuse               bool
	logger              *zap.Logger
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// Partition makes a reader yield only part partIndex of numParts, as MXNet's
// InputSplit does for distributed training (num_parts / part_index): the
// files are treated as one concatenated byte stream, cut into numParts equal
// byte ranges (their size rounded up to 4 bytes), and a record belongs to the
// range that holds its first byte. Every record falls in exactly one part,
// whatever the number of files, and the cuts fall where dmlc-core puts them.
// It panics if numParts < 1 or partIndex is not in [0, numParts).
func Partition(numParts, partIndex int) Option {
	if numParts < 1 || partIndex < 0 || partIndex >= numParts {
		panic(fmt.Sprintf("recordio: Partition(%d, %d): need numParts >= 1 and 0 <= partIndex < numParts",
			numParts, partIndex))
	}
	return optionFunc(func(o *options) { o.numParts, o.partIndex = numParts, partIndex })
}

// ReuseBuffer makes every Record of a pass share one buffer: Data is valid
// only until the next record is read. Use it when each record is consumed
// (decoded, copied) before the next one is asked for, and never with a stage
// that holds on to samples (Shuffle, Buffered, Cache, batching of raw data).
func ReuseBuffer() Option { return optionFunc(func(o *options) { o.reuse = true }) }

// WithLogger sets a logger for debug messages (files opened, byte ranges).
// The default, and what a nil logger means, is zap.NewNop().
func WithLogger(l *zap.Logger) Option {
	if l == nil {
		l = zap.NewNop()
	}
	return optionFunc(func(o *options) { o.logger = l })
}

// Open returns a reader over the records of the file at path. The file is
// opened when a pass starts and closed when it ends.
func Open(path string, opts ...Option) source.Reader[Record] {
	return Records([]string{path}, opts...)
}

// Records returns a reader over the records of several files, read one after
// another in the given order. Each pass opens the files one at a time and
// closes each before the next. A malformed file ends the pass with a
// *FormatError naming the file and byte offset. It panics if paths is empty.
func Records(paths []string, opts ...Option) source.Reader[Record] {
	if len(paths) == 0 {
		panic("recordio: Records needs at least one path")
	}
	o := options{numParts: 1, logger: zap.NewNop()}
	for _, opt := range opts {
		opt.apply(&o)
	}
	if o.logger == nil {
		o.logger = zap.NewNop()
	}
	fs := &files{paths: append([]string(nil), paths...), o: o}
	return source.Func[Record](fs.pass)
}

type files struct {
	paths []string
	o     options
}

// span is the byte range [lo, hi) of one file whose record starts belong to
// the pass.
type span struct{ lo, hi int64 }

func (fs *files) pass(ctx context.Context) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		spans, err := fs.spans()
		if err != nil {
			yield(Record{}, err)
			return
		}
		index := 0
		var buf []byte
		for i, path := range fs.paths {
			if spans[i].lo >= spans[i].hi {
				continue
			}
			if !fs.readFile(ctx, path, spans[i], &index, &buf, yield) {
				return
			}
		}
	}
}

// spans gives each file the range of offsets at which its records of this
// part start. Without partitioning that is the whole file.
func (fs *files) spans() ([]span, error) {
	spans := make([]span, len(fs.paths))
	if fs.o.numParts == 1 {
		for i := range spans {
			spans[i] = span{0, math.MaxInt64}
		}
		return spans, nil
	}
	sizes := make([]int64, len(fs.paths))
	var total int64
	for i, p := range fs.paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		sizes[i] = st.Size()
		total += st.Size()
	}
	begin, end := PartRange(total, fs.o.numParts, fs.o.partIndex)
	var at int64 // offset of file i in the concatenation
	for i, size := range sizes {
		lo, hi := max(begin-at, 0), min(end-at, size)
		if lo < hi {
			spans[i] = span{lo, hi}
		}
		at += size
	}
	fs.o.logger.Debug("recordio partition",
		zap.Int("num_parts", fs.o.numParts), zap.Int("part_index", fs.o.partIndex),
		zap.Int64("begin", begin), zap.Int64("end", end), zap.Int64("total", total))
	return spans, nil
}

// PartRange returns the byte range [begin, end) of part partIndex of
// numParts over total bytes, computed as dmlc-core's InputSplit does: each
// part is ceil(total/numParts) bytes rounded up to a multiple of 4, and the
// last parts may be short or empty. A record belongs to the part whose range
// holds its first byte.
func PartRange(total int64, numParts, partIndex int) (begin, end int64) {
	step := align4((total + int64(numParts) - 1) / int64(numParts))
	return min(step*int64(partIndex), total), min(step*int64(partIndex+1), total)
}

// readFile yields the records of one file that start in sp. It reports
// whether the pass goes on.
func (fs *files) readFile(ctx context.Context, path string, sp span, index *int, buf *[]byte,
	yield func(Record, error) bool) bool {
	f, err := os.Open(path)
	if err != nil {
		yield(Record{}, err)
		return false
	}
	defer f.Close()
	start := sp.lo
	if start > 0 {
		start, err = Sync(f, sp.lo)
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
	fs.o.logger.Debug("recordio open", zap.String("file", path), zap.Int64("from", start), zap.Int64("to", sp.hi))
	rd := NewReader(f)
	rd.Name = path
	rd.BaseOffset = start
	rd.ReuseBuffer = fs.o.reuse
	if fs.o.reuse {
		rd.buf = *buf
		defer func() { *buf = rd.buf }()
	}
	done := ctx.Done()
	for rd.InputOffset() < sp.hi {
		if done != nil {
			select {
			case <-done:
				yield(Record{}, ctx.Err())
				return false
			default:
			}
		}
		data, err := rd.Next()
		if err == io.EOF {
			return true
		}
		if err != nil {
			yield(Record{}, err)
			return false
		}
		rec := Record{File: path, Offset: rd.Offset(), Index: *index, Data: data}
		*index++
		if !yield(rec, nil) {
			return false
		}
	}
	return true
}
