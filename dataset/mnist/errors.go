package mnist

import "github.com/tensorfeed/tensorfeed/internal/idx"

// ErrFormat is wrapped by every error about bad data in an MNIST pair of
// files, from the IDX format's (a wrong magic number, a truncated or
// corrupt file, data after the last record) to MNIST's own (files that are
// not 28x28 images and their labels, counts that differ, a label outside
// [Classes]). It wraps tensorfeed.ErrBadData, so code that reads several
// formats can test for bad data with one errors.Is. Every such error is a
// *tensorfeed.Error that names the file, the byte offset in the
// uncompressed stream and, where there is one, the record.
var ErrFormat = idx.ErrFormat

// ErrTooLarge is the cause of an error about a header that declares more
// than the reader allows ([MaxFileBytes]; a record of more than 64 MiB).
// Such a file may be valid with a larger maximum: the error says which
// option to raise.
var ErrTooLarge = idx.ErrTooLarge
