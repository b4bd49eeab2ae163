package tfrecord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"strings"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
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
	reuse    bool
	maxBytes int64
	bad      *source.SkipPolicy
	storage  []storage.Option
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
// 256 MiB); a longer length ends the pass with an
// error that wraps ErrTooLarge, before anything is allocated for it. It
// panics if n < 1.
func MaxRecordBytes(n int64) Option {
	if n < 1 {
		panic(fmt.Sprintf("tfrecord: MaxRecordBytes(%d): must be at least 1", n))
	}
	return option.New(func(c *config) { c.maxBytes = n })
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

// records is the re-iterable reader over the records of one TFRecord
// file that Open returns for a single path.
type records struct {
	path string
	c    config
	core streamfile.Stream
}

// Open returns a reader over the records of the TFRecord files that list
// names, each plain or gzip-compressed: a path or a URL (see [Storage]),
// several separated by ';', a directory (every file in it, in name order)
// or a glob, as source.Paths expands it when a pass starts. Each file is
// opened when the pass reaches it, with the pass's context, and closed
// before the next. Malformed input ends the pass with a *tensorfeed.Error
// naming the file, the record and its byte offset; Record.Index counts the
// records of its file.
//
// The reader of one file is source.Resumable from a byte offset (see
// resume.go), a source.Identifier and a source.SkipCounted; that of a list
// of several resumes by replay. TFRecord has no sync marker: to split the
// records between ranks, shard the stream in the pipeline, or convert the
// files to a format read by index.
func Open(list string, opts ...Option) source.Reader[Record] {
	c := config{maxBytes: defaultMaxRecordBytes}
	option.Apply(&c, opts)
	if !isList(list) {
		return newRecords(list, c)
	}
	return source.Replayed[Record, Record]("tfrecord(list="+streamfile.NameHash(list)+")", source.Func[Record](func(ctx context.Context) iter.Seq2[Record, error] {
		paths, err := source.Paths(ctx, list, "", c.storage...)
		if err != nil {
			return source.Fail[Record](err)
		}
		return source.Files(paths, 1, func(p string) source.Reader[Record] { return newRecords(p, c) }, 16).All(ctx)
	}))
}

// isList reports whether list may name more than one file: it holds a
// ';', a glob or a local directory, or is an s3:// URL of a directory.
func isList(list string) bool {
	if strings.Contains(list, ";") {
		return true
	}
	if storage.IsRemote(list) {
		return strings.HasPrefix(strings.ToLower(list), "s3://") && (strings.HasSuffix(list, "/") || strings.ContainsAny(list, "*?["))
	}
	if strings.ContainsAny(list, "*?[") {
		return true
	}
	st, err := os.Stat(list)
	return err == nil && st.IsDir()
}

// newRecords returns the reader of one file. Its states name the file by a
// hash of its base name, so that a state of another file is refused while
// the file may move.
func newRecords(path string, c config) *records {
	return &records{path: path, c: c, core: streamfile.New("tfrecord", "records", "tfrecord("+streamfile.NameHash(path)+")", 1)}
}

var (
	_ source.Resumable[Record] = (*records)(nil)
	_ source.SkipCounted       = (*records)(nil)
)

// Skipped returns how many bad records the reader's policy (OnBad) has
// skipped, over all passes and all readers that share the policy; 0
// without one. It makes the reader a source.SkipCounted.
func (r *records) Skipped() int64 { return r.c.bad.Skipped() }

// All starts a pass over the records. The pass logs through
// tensorfeed.Logger(ctx): one debug entry when it opens the file, and a
// warning for each record the policy skips.
func (r *records) All(ctx context.Context) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		p := r.core.Start(ctx)
		f, err := storage.OpenFile(p.Ctx, r.path, r.c.storage...)
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
		if ce := p.Log.Check(zap.DebugLevel, "tfrecord open"); ce != nil {
			ce.Write(zap.String("file", r.path), zap.Int64("size", size))
		}
		rd := newReader(f, r.path)
		rd.reuse = r.c.reuse
		rd.maxRecord = r.c.maxBytes
		if regular {
			rd.size = size // ignored for gzip
		}
		if r.core.From.Exact {
			if err := r.seek(f, rd, p.Log); err != nil {
				yield(Record{}, err)
				return
			}
		}
		// The ring holds, after each record, where the next one starts and
		// how many records were skipped as bad before it; a resumed pass
		// judges its policy over the whole pass: index records read,
		// index-N of them bad.
		p.OnBad(r.c.bad, rd.index-p.N)
		if r.core.From.Exact {
			p.Mark(marks.Pack(rd.index-p.N, rd.pos))
		}
		for {
			if err := p.Stopped(); err != nil {
				yield(Record{}, err)
				return
			}
			data, err := rd.Next()
			if err == io.EOF {
				if err := p.End(); err != nil {
					yield(Record{}, err)
				}
				return
			}
			if err != nil {
				if errors.Is(err, ErrDataChecksum) {
					if err = p.Bad(err); err == nil {
						continue
					}
				}
				yield(Record{}, err)
				return
			}
			// rd.index counts this record: N+1 once Good has counted it
			if !p.Good(marks.Pack(rd.index-(p.N+1), rd.pos)) {
				continue // dropped by a replay
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
// ErrFormat (and ErrTooLarge for a limit), before anything
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
