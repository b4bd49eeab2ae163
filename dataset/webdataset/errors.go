package webdataset

import (
	"errors"
	"fmt"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
)

// ErrFormat is wrapped by every error about bad data in a shard or in a
// field of a sample. It wraps tensorfeed.ErrBadData.
var ErrFormat = fmt.Errorf("webdataset: bad shard: %w", tensorfeed.ErrBadData)

// The causes an [*tensorfeed.Error] wraps besides ErrFormat. A bad tar
// header, a truncated shard, ErrAfterEnd, ErrTooLarge and ErrSplit are
// structural: they end a pass under any bad-record policy. A missing field,
// a field that does not decode and a field name that two members of one
// sample share are about one sample, which a policy (OnBad) may skip.
var (
	// ErrAfterEnd: bytes other than zero padding follow the tar
	// end-of-archive blocks, as in tar archives joined end to end
	// (cat a.tar b.tar). The error's offset is that of the first block
	// that is not zero; IgnoreZeros reads such a shard whole.
	ErrAfterEnd = errors.New("data after the end of the archive")
	// ErrTooLarge: a member is larger than MaxMemberBytes, or would take
	// its sample over MaxSampleBytes. It is reported from the member's
	// header, before the member is read.
	ErrTooLarge = errors.New("larger than the configured maximum")
	// ErrSplit: the members of one sample are not consecutive: a key
	// appears again after another key, in the same shard or at the start
	// of the next shard of the list.
	ErrSplit = errors.New("sample split")
)

// The causes that need no exported name, since a caller does the same
// about them as about any bad shard or sample (the error's text says
// which): errHeader, a tar header that does not parse (a bad checksum,
// a bad number field) or describes a sparse file, or a corrupt gzip
// stream of a .tar.gz shard; errTruncated, a shard that ends inside a
// header or a member, a member that claims more bytes than the rest of
// the file holds, or a shard without the tar end-of-archive blocks;
// errDuplicateField, two members of one sample with the same field name;
// errMissingField, a sample that lacks a field named by Fields, or a
// decoder asked for a field the sample does not have (Sample.Fields says
// which fields it has); errDecode, a field whose bytes do not decode as
// asked (a .cls that is not an integer, bad JSON, a bad .npy header, an
// image that does not decode).
var (
	errHeader         = errors.New("bad tar header")
	errTruncated      = errors.New("truncated shard")
	errDuplicateField = errors.New("duplicate field")
	errMissingField   = errors.New("missing field")
	errDecode         = errors.New("field does not decode")
)

// shardError returns the error about bad data in a shard: the byte offset
// of the tar header of the member concerned (of the first member of a
// sample for errors about a whole sample) and the member's name ("" when
// the header did not parse). For a .tar.gz shard the offset counts bytes
// of the decompressed tar stream. It wraps ErrFormat (and so
// tensorfeed.ErrBadData) and err, which wraps errHeader, errTruncated, ErrSplit, ...
// and the underlying error if any.
func shardError(shard string, off int64, member string, err error) *tensorfeed.Error {
	return &tensorfeed.Error{Path: shard, Offset: off, Record: -1, Member: member, Err: cause.Prefixed("webdataset: ", ErrFormat, err)}
}

// perSample tells whether err is about one sample only, which a
// SkipPolicy may skip.
func perSample(err error) bool {
	return streamfile.OneRecord(err, tensorfeed.ErrBadData, errHeader, errTruncated, ErrAfterEnd, ErrTooLarge, ErrSplit)
}

// SplitAcross returns the error about a sample split across two shards
// read one after the other: key is the key of the last sample of shard
// prev and of the first sample of shard, at offset. It wraps [ErrSplit].
// [Open] gives it (with the member's name set), and so do the
// readers that take shards one by one, dataset/format's Open and the
// tensorfeed command's check, so that such a sample is refused the same
// way wherever shards are read.
func SplitAcross(prev, shard, key string, offset int64) *tensorfeed.Error {
	return shardError(shard, offset, "", fmt.Errorf("%w: key %q ends shard %s and starts this one", ErrSplit, key, prev))
}
