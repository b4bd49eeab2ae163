package tfrecord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Record is one record of a TFRecord file.
type Record struct {
	File   string // path or URL of the file it was read from
	Offset int64  // byte offset of its header (in the decompressed stream for gzip)
	Index  int64  // its index in the file, from 0, skipped records included
	Data   []byte // the payload
}

// Option configures Open.
type Option = option.Option[config]

type config struct {
	reuse       bool
	maxBytes    int64
	compression Compression
	bad         *source.SkipPolicy
	storage     []storage.Option
}

// Storage sets the options of package storage through which the file is
// opened: the path given to Open may be a local path, an s3://bucket/key
// object or an http(s):// URL (see [storage.Open]), and opts say how to
// reach it (endpoint, credentials, retries, read-ahead, a cache). Without
// it, URLs are opened with storage's defaults. The storage's errors name
// the URL and the byte range.
func Storage(opts ...storage.Option) Option {
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// ReuseBuffer makes every Record of a pass share one buffer: Data is valid
// only until the next record is read. Use it when each record is consumed
// (parsed, copied) before the next one is asked for, and never with a stage
// that holds on to samples (Shuffle, Buffered, Cache, batching of raw data).
func ReuseBuffer() Option { return option.New(func(c *config) { c.reuse = true }) }

// MaxRecordBytes sets the largest record a reader accepts (default
// DefaultMaxRecordBytes, 256 MiB); a longer length ends the pass with an
// error that wraps ErrTooLarge, before anything is allocated for it. It
// panics if n < 1.
func MaxRecordBytes(n int64) Option {
	if n < 1 {
		panic(fmt.Sprintf("tfrecord: MaxRecordBytes(%d): must be at least 1", n))
	}
	return option.New(func(c *config) { c.maxBytes = n })
}

// WithCompression says how the file is compressed (default Detect: gzip
// when the file starts with the gzip magic).
func WithCompression(comp Compression) Option {
	return option.New(func(c *config) { c.compression = comp })
}

// SkipBad skips records whose data does not match its CRC while they are at
// most maxFraction of a pass's records, counting and logging each (see
// [source.SkipBad], which it calls with these arguments, and [OnBad]).
func SkipBad(maxFraction float64, opts ...source.SkipOption) Option {
	return OnBad(source.SkipBad(maxFraction, opts...))
}

// OnBad sets the bad-record policy, which may be shared with other readers.
// A bad record is one whose data does not match its CRC (ErrDataChecksum):
// its framing is intact, so the reader can go on with the next one. Whatever
// the policy, the pass fails on a missing or unreadable file, a truncated
// file, a length whose CRC is wrong, a length over MaxRecordBytes or past
// the end of the file, and a damaged gzip stream: after those, nothing can
// be trusted. The policy's warnings go to the logger of the pass's context
// (tensorfeed.WithLogger). The default, a nil policy, fails the pass at the
// first bad record.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.bad = p }) }

// Records is a re-iterable reader over the records of a TFRecord file; see
// [Open].
type Records struct {
	path   string
	c      config
	from   start
	epochs *source.Epochs
	marks  *marks.Marks
}

// Open returns a reader over the records of the TFRecord file at path (a
// local path or a URL, see [Storage]), plain or gzip-compressed. The file is
// opened when a pass starts, with the pass's context, and closed when it
// ends. Malformed input ends the pass with a *tensorfeed.Error naming the
// file, the record and its byte offset.
//
// For sharding over ranks, use stage.Shard on the reader: TFRecord has no
// sync marker, so every rank reads the whole file and keeps its share.
func Open(path string, opts ...Option) *Records {
	c := config{maxBytes: DefaultMaxRecordBytes}
	option.Apply(&c, opts)
	return newRecords(path, c, start{})
}

func newRecords(path string, c config, from start) *Records {
	return &Records{path: path, c: c, from: from, epochs: new(source.Epochs), marks: marks.New(1)}
}

var (
	_ source.Resumable[Record] = (*Records)(nil)
	_ source.SkipCounted       = (*Records)(nil)
)

// Skipped returns how many bad records the reader's policy (OnBad, SkipBad)
// has skipped, over all passes and all readers that share the policy; 0
// without one. It makes the reader a source.SkipCounted.
func (r *Records) Skipped() int64 { return r.c.bad.Skipped() }

// checkEvery is how many records a pass reads between looks at its context.
const checkEvery = 64

// All starts a pass over the records. The pass logs through
// tensorfeed.Logger(ctx): one debug entry when it opens the file, and a
// warning for each record the policy skips.
func (r *Records) All(ctx context.Context) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		ctx, epoch := r.epochs.Start(ctx)
		f, err := storage.OpenFile(ctx, r.path, r.c.storage...)
		if err != nil {
			yield(Record{}, err)
			return
		}
		defer f.Close()
		size, regular := f.Size(), true
		if sf, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
			// A local file: a pipe or a device has no size to check against.
			st, err := sf.Stat()
			if err != nil {
				yield(Record{}, err)
				return
			}
			size, regular = st.Size(), st.Mode().IsRegular()
		}
		log := tensorfeed.Logger(ctx)
		if ce := log.Check(zap.DebugLevel, "tfrecord open"); ce != nil {
			ce.Write(zap.String("file", r.path), zap.Int64("size", size))
		}
		rd := NewReader(f)
		rd.Name = r.path
		rd.ReuseBuffer = r.c.reuse
		rd.MaxRecordBytes = r.c.maxBytes
		rd.Compression = r.c.compression
		if regular {
			rd.Size = size // ignored for gzip
		}
		ring := r.marks.Start(epoch, r.from.Low())
		n := r.from.N
		if r.from.Exact {
			if err := r.seek(f, rd, log); err != nil {
				yield(Record{}, err)
				return
			}
			ring.Put(n, marks.Pack(r.from.index-n, r.from.off))
		}
		skips := r.c.bad.Pass(-1, log)
		if r.from.Exact {
			// judged over the whole pass: index records read, index-n bad
			skips = r.c.bad.PassFrom(-1, r.from.index, r.from.index-n, log)
		}
		done := ctx.Done()
		for i := 0; ; i++ {
			if done != nil && i%checkEvery == 0 {
				select {
				case <-done:
					yield(Record{}, ctx.Err())
					return
				default:
				}
			}
			data, err := rd.Next()
			if err == io.EOF {
				if err := skips.End(); err != nil {
					yield(Record{}, err)
				}
				return
			}
			if err != nil {
				if errors.Is(err, ErrDataChecksum) {
					if err = skips.Bad(err); err == nil {
						continue
					}
				}
				yield(Record{}, err)
				return
			}
			skips.Good()
			n++
			ring.Put(n, marks.Pack(rd.index-n, rd.pos))
			if n <= r.from.Skip {
				continue
			}
			if !yield(Record{File: r.path, Offset: rd.Offset(), Index: rd.Index(), Data: data}, nil) {
				return
			}
		}
	}
}

// Example parses the record's data as a tf.train.Example, within the limits
// of [ParseExample] (opts: [MaxValues], [MaxFeatures]). A malformed one, or
// one over a limit, gives a *tensorfeed.Error that names the file, the
// record, its offset and the feature at fault (Member), and wraps
// ErrFormat and ErrExample (and ErrTooLarge for a limit), before anything
// is allocated for the Example.
func (r Record) Example(opts ...ExampleOption) (Example, error) {
	ex, err := ParseExample(r.Data, opts...)
	if err != nil {
		e := &tensorfeed.Error{Path: r.File, Offset: r.Offset, Record: int64(r.Index), Err: inExample{err}}
		var pe *tensorfeed.Error
		if errors.As(err, &pe) {
			e.Member = pe.Member
		}
		return Example{}, e
	}
	return ex, nil
}

// inExample is the cause of a record's error about its Example: the
// Example's error, whose offset counts bytes of the record's data and so
// goes into the text, not into the record's Offset in the file.
type inExample struct{ err error }

func (e inExample) Error() string {
	var pe *tensorfeed.Error
	if errors.As(e.err, &pe) && pe.Err != nil {
		if pe.Offset < 0 {
			return pe.Err.Error()
		}
		return fmt.Sprintf("byte %d of its tf.train.Example: %v", pe.Offset, pe.Err)
	}
	return e.err.Error()
}

// Unwrap returns ErrFormat and the Example's error.
func (e inExample) Unwrap() []error { return []error{ErrFormat, e.err} }
