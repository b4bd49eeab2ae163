package tfrecord

import "io"

// Reader is the pull reader under Open's passes, for the tests of its
// framing: Next returns the next record's data and io.EOF at the end.
type Reader = reader

// NewReader returns a Reader of r; name names the input in errors.
func NewReader(r io.Reader, name string) *Reader { return newReader(r, name) }

// The default limits, for the tests of the limits.
const (
	DefaultMaxValues   = defaultMaxValues
	DefaultMaxFeatures = defaultMaxFeatures
)

// SetReuse makes r's Next return a slice that the next call overwrites, as
// a pass of Open with ReuseBuffer does.
func SetReuse(r *Reader, reuse bool) { r.reuse = reuse }

// SetSize tells r the size of its plain input, as Open does for a file.
func SetSize(r *Reader, n int64) { r.size = n }

// SetMaxRecordBytes sets r's largest record, as Open's MaxRecordBytes does.
func SetMaxRecordBytes(r *Reader, n int64) { r.maxRecord = n }

// SetGzip makes r read its input as gzip, without looking at it, as a
// pass resumed in a gzip file does.
func SetGzip(r *Reader) { r.compression = gzipped }
