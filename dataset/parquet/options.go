package parquet

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// The default limits of a reader (see each option).
const (
	defaultMaxFooterBytes    = 64 << 20
	defaultMaxMetadataBytes  = 512 << 20
	defaultMaxPageBytes      = 256 << 20
	defaultMaxPageValues     = 1 << 24
	defaultMaxRowGroupValues = 1 << 28
)

// Option configures the readers ([Read], [ReadColumns], [ReadRaw]) and so
// the view that [OpenIndexed] opens from them.
type Option = option.Option[config]

type config struct {
	maxFooter      int64
	maxMeta        int64
	maxPage        int64
	maxPageValues  int64
	maxGroupValues int64
	workers        int
	reuse          bool
	bad            *source.SkipPolicy
	storage        []storage.Option
}

func newConfig(opts []Option) config {
	c := config{
		maxFooter:      defaultMaxFooterBytes,
		maxMeta:        defaultMaxMetadataBytes,
		maxPage:        defaultMaxPageBytes,
		maxPageValues:  defaultMaxPageValues,
		maxGroupValues: defaultMaxRowGroupValues,
		workers:        1,
	}
	option.Apply(&c, opts)
	return c
}

func positive(name string, n int64) {
	if n < 1 {
		panic(fmt.Sprintf("parquet: %s(%d): must be at least 1", name, n))
	}
}

// limit returns the option name(n) that sets the limit at of a config to
// n, panicking if n < 1.
func limit(name string, n int64, at func(*config) *int64) Option {
	positive(name, n)
	return option.New(func(c *config) { *at(c) = n })
}

// MaxFooterBytes sets the largest footer (the file's metadata, as stored
// at its end) a reader accepts (default 64 MiB). A
// longer footer, or one longer than the file, ends the pass with an error
// that wraps ErrTooLarge before anything is allocated for it. It panics if
// n < 1.
func MaxFooterBytes(n int64) Option {
	return limit("MaxFooterBytes", n, func(c *config) *int64 { return &c.maxFooter })
}

// MaxMetadataBytes bounds the memory the decoded footer may take (default
// 512 MiB). The footer is walked before it is
// decoded, counting every structure it holds at the size of the largest
// Go structure that parquet-go decodes metadata into and every list
// element at the size of its slot, so that a small footer that claims
// millions of row groups or columns is refused (ErrTooLarge) before it is
// decoded. It panics if n < 1.
func MaxMetadataBytes(n int64) Option {
	return limit("MaxMetadataBytes", n, func(c *config) *int64 { return &c.maxMeta })
}

// MaxPageBytes sets the largest page a reader decodes, compressed or not
// (default 256 MiB). Every page header is checked before parquet-go
// reads it (see the package doc): a page longer than the bytes
// of its column chunk, an uncompressed size over n, or a snappy block that
// claims more than n bytes ends the pass with an error wrapping
// ErrTooLarge or io.ErrUnexpectedEOF. It panics if n < 1.
func MaxPageBytes(n int64) Option {
	return limit("MaxPageBytes", n, func(c *config) *int64 { return &c.maxPage })
}

// MaxPageValues sets the largest number of values (nulls included) one
// page may claim (default 16 Mi). Run-length encoded
// levels let a few bytes claim millions of values; the decoder allocates
// for the count, so it is bounded here. It panics if n < 1.
func MaxPageValues(n int64) Option {
	return limit("MaxPageValues", n, func(c *config) *int64 { return &c.maxPageValues })
}

// MaxRowGroupValues sets the most values (nulls included) the data pages
// of one column of a row group may claim together (default
// 256 Mi). Dictionary and run-length encoding
// let a page of a few bytes claim MaxPageValues values, so without it a
// small file of many such pages would take memory (a list decoded into a
// Go slice) and time out of all proportion to its size. Every page header
// is checked before parquet-go reads it: more values end the pass with an
// error wrapping ErrTooLarge, after the rows before the page with
// ReadColumns. It panics if n < 1.
func MaxRowGroupValues(n int64) Option {
	return limit("MaxRowGroupValues", n, func(c *config) *int64 { return &c.maxGroupValues })
}

// Workers decodes up to n row groups at once, each on its own goroutine
// started by the pass, while the pass yields rows in file order: the
// output is the same for every n. Memory grows with n: up to n+1 decoded
// row groups are held. The default is 1: the row groups are decoded on the
// goroutine that ranges over the pass, and those of [ReadColumns] a few
// rows at a time, as the consumer asks for them, so that no decoded row
// group is held. It panics if n < 1.
func Workers(n int) Option {
	positive("Workers", int64(n))
	return option.New(func(c *config) { c.workers = n })
}

// ReuseBuffer makes the rows of [ReadColumns] share the memory of the
// pages they are read from, which goes back to the pages read next once
// the consumer is past the rows read from them (past the row group with
// several Workers), and reuse their slices of values (Row.F32 and the
// others) for the rows after: a row's values are valid only until the
// next row is read. Use it when each row is consumed (copied into a
// batch, say) before the next one is asked for, and never with a stage
// that holds on to rows (Shuffle, Buffered, Cache, a batch of rows
// rather than of tensors). It saves the allocation of every page, which
// is most of what a pass costs beyond parquet-go's own reading. The
// view of OpenIndexed ignores it: its rows stay valid.
func ReuseBuffer() Option { return option.New(func(c *config) { c.reuse = true }) }

// Storage sets the options of package storage through which the files are
// opened: a path may be a local path, an s3://bucket/key object or an
// http(s):// URL (see storage.Open), and opts say how to reach it
// (endpoint, credentials, retries, a cache). Without it, URLs are opened
// with storage's defaults. A remote file is read by byte ranges: its
// footer, then its pages 1 MiB at a time (the page headers of each row
// group before them for Read and ReadRaw). The storage's errors name the
// URL and the byte range.
func Storage(opts ...storage.Option) Option {
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// OnBad sets the bad-record policy, which may be shared with other
// readers. A bad record is a row whose value does not fit the shape of its
// column (an ErrFormat error); the rows after it are intact. Whatever the policy, a
// pass fails on a missing file, a bad magic, a footer or page that is
// truncated, corrupt or over the limits, and a column of the wrong type:
// after those nothing can be trusted. Rows decoded into Go structs by
// [Read] have no per-row errors. The default, a nil policy, fails the pass
// at the first bad row.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.bad = p }) }
