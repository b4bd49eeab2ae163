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

// The causes an [*tensorfeed.Error] wraps besides ErrFormat. ErrHeader, ErrTruncated,
// ErrAfterEnd, ErrTooLarge and ErrSplit are structural: they end a pass under any
// bad-record policy. ErrMissingField, ErrDuplicateField and ErrDecode are
// about one sample, which a policy (OnBad) may skip.
var (
	// ErrHeader: a tar header does not parse (a bad checksum, a bad
	// number field) or describes a sparse file, or the gzip stream of a
	// .tar.gz shard is corrupt.
	ErrHeader = errors.New("bad tar header")
	// ErrTruncated: the shard ends inside a header or a member, a member
	// claims more bytes than the rest of the file holds, or the shard
	// ends without the tar end-of-archive blocks.
	ErrTruncated = errors.New("truncated shard")
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
	// ErrMissingField: a sample lacks a field named by Fields, or a
	// decoder was asked for a field the sample does not have.
	ErrMissingField = errors.New("missing field")
	// ErrDuplicateField: two members of one sample have the same field
	// name.
	ErrDuplicateField = errors.New("duplicate field")
	// ErrDecode: a field's bytes do not decode as asked (a .cls that is
	// not an integer, bad JSON, a bad .npy header, an image that does not
	// decode).
	ErrDecode = errors.New("field does not decode")
)

// shardError returns the error about bad data in a shard: the byte offset
// of the tar header of the member concerned (of the first member of a
// sample for errors about a whole sample) and the member's name ("" when
// the header did not parse). For a .tar.gz shard the offset counts bytes
// of the decompressed tar stream. It wraps ErrFormat (and so
// tensorfeed.ErrBadData) and err, which wraps ErrHeader, ErrTruncated, ...
// and the underlying error if any.
func shardError(shard string, off int64, member string, err error) *tensorfeed.Error {
	return &tensorfeed.Error{Path: shard, Offset: off, Record: -1, Member: member, Err: cause.Prefixed("webdataset: ", ErrFormat, err)}
}

// perSample tells whether err is about one sample only, which a
// SkipPolicy may skip.
func perSample(err error) bool {
	return streamfile.OneRecord(err, tensorfeed.ErrBadData, ErrHeader, ErrTruncated, ErrAfterEnd, ErrTooLarge, ErrSplit)
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
