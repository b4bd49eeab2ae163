package idx

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

// The default limits of an IDX reader. They hold every IDX data set in
// common use (MNIST's training images are 47 MB, EMNIST's largest file is
// 550 MB, a record of MNIST is 784 bytes) and keep a corrupt or hostile
// header from costing more than they allow.
const (
	DefaultMaxRecordBytes = 64 << 20 // 64 MiB
	DefaultMaxFileBytes   = 1 << 30  // 1 GiB of elements, after decompression
)

// An Option configures how an IDX file is read: by [NewReader], [Decode],
// [ReadFile] and [Check].
type Option = option.Option[config]

type config struct {
	maxRecord int64
	maxFile   int64
	size      int64 // bytes of input from the reader's position, or -1
}

func newConfig(opts []Option) config {
	c := config{maxRecord: DefaultMaxRecordBytes, maxFile: DefaultMaxFileBytes, size: -1}
	option.Apply(&c, opts)
	return c
}

// MaxRecordBytes sets the largest record (one slice along the first
// dimension) a header may declare, in bytes; the default is
// [DefaultMaxRecordBytes]. A larger declaration is an error wrapping
// [ErrTooLarge], reported before anything is allocated for it. It bounds
// the buffer a reader of one record needs. MaxRecordBytes panics if n < 1.
func MaxRecordBytes(n int64) Option {
	if n < 1 {
		panic(fmt.Sprintf("idx: MaxRecordBytes(%d): need n >= 1", n))
	}
	return option.New(func(c *config) { c.maxRecord = n })
}

// MaxFileBytes sets the largest data size (all elements, after gzip
// decompression, without the header) a header may declare; the default is
// [DefaultMaxFileBytes]. A larger declaration is an error wrapping
// [ErrTooLarge]. It bounds the memory of [Decode] and of a reader of a
// whole gzip stream, whose decompressed size is known only once it has
// been read, and the work a gzip bomb can cause. MaxFileBytes
// panics if n < 1.
func MaxFileBytes(n int64) Option {
	if n < 1 {
		panic(fmt.Sprintf("idx: MaxFileBytes(%d): need n >= 1", n))
	}
	return option.New(func(c *config) { c.maxFile = n })
}

// InputSize tells the reader that n bytes remain in its input, from the
// reader's position to the end (for a file read from its start, the file's
// size). A plain (not gzipped) stream whose header declares more data than
// that is reported as truncated at once, where the data ends, without
// reading or allocating for it; one that holds more is reported as having
// data after its last record. The size of a gzip stream says nothing about
// its decompressed size and is not used. [ReadFile] and [CheckFile] take
// the size from the file system; the default is unknown.
// InputSize panics if n < 0.
func InputSize(n int64) Option {
	if n < 0 {
		panic(fmt.Sprintf("idx: InputSize(%d): need n >= 0", n))
	}
	return option.New(func(c *config) { c.size = n })
}
