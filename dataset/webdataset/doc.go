// Package webdataset reads and writes WebDataset shards: POSIX tar files
// (plain or gzip-compressed, told apart by their magic bytes) whose members
// are grouped into samples by key.
//
// # Samples
//
// A member's key is its path up to the first dot of its base name, and its
// field the rest of the base name: a/b/000123.jpg and a/b/000123.cls make
// the sample a/b/000123 with the fields jpg and cls, and x.seg.png has the
// key x and the field seg.png. The members of a sample are consecutive in
// the tar. Directories, other non-regular entries and files whose base
// name has no field (README, .hidden) are passed over, as WebDataset does.
//
// [Open] reads the shards of a file list (a path, several separated by
// ';', a directory or a glob), in order (a sample
// whose key ends one shard and starts the next is refused, see
// [SplitAcross]), as a source.Reader[[Sample]]: a sample holds its key, its shard, the offset of
// its first member and the bytes of its fields. The methods of Sample
// decode a field: [Sample.Int] (.cls), [Sample.Bytes] (.txt, as string(b)),
// [Sample.JSON], [Sample.NPY] (NumPy .npy arrays, see [NPY] and [Dense])
// and [Sample.Image] (JPEG and PNG through image/decode). [Decode] turns a
// reader of samples into a reader of the caller's own type, with decoding
// errors under the reader's bad-record policy. A [Writer] writes samples
// as a shard; it refuses member names that would extract outside the
// target folder (absolute, or holding a ".." element).
//
// # End of archive
//
// A tar archive ends with two zero blocks. Zero padding may follow them
// (GNU tar pads to whole records); anything else is a [*tensorfeed.Error]
// wrapping [ErrAfterEnd] at the offset of the first block that is not zero,
// after
// the samples before it were given. That is what tar archives joined end
// to end look like (cat a.tar b.tar > c.tar, or .tar.gz shards joined the
// same way), and what most readers silently stop at: [IgnoreZeros] reads
// them whole, as GNU tar's --ignore-zeros does. The bytes after the end
// blocks are read to the end of the shard, so that a gzip stream's
// checksum is checked, and at most MaxMemberBytes of zero padding in a
// row.
//
// Shards may be local paths, s3://bucket/key objects or http(s):// URLs,
// opened through package storage when a pass starts and streamed with
// read-ahead; [storage.List] finds a dataset's shards by a glob, and the
// [Storage] option passes storage's options (endpoint, credentials,
// retries, read-ahead, a local cache).
//
// # Bad input
//
// Every error about the data is a [*tensorfeed.Error] that names the shard
// (Path), the byte offset of the tar header of the member concerned (in the decompressed
// stream of a .tar.gz shard) and the member, and wraps [ErrFormat] (and so
// tensorfeed.ErrBadData) and its cause. A bad tar header or gzip stream
// ("bad tar header"), a truncated shard ("truncated shard": it ends inside a
// header or a member, a member claims more bytes than the file holds after
// its header, or the end-of-archive blocks are missing), data after the
// end-of-archive blocks ([ErrAfterEnd]), a member over
// [MaxMemberBytes] or a sample over [MaxSampleBytes] ([ErrTooLarge]) and a sample whose members are not
// consecutive, in one shard or across two ([ErrSplit]), end the pass under
// any policy. A sample that lacks a field named by [Fields]
// ("missing field"), holds a field twice ("duplicate field") or does
// not decode through [Decode] ("field does not decode") is bad on its own: [OnBad]
// skips such samples up to a bound (source.SkipPolicy).
//
// # Memory
//
// A pass holds one sample, and one member read ahead, at a time. A member
// is allocated once its header was checked against [MaxMemberBytes]
// (default 64 MiB), the sample's members together
// against [MaxSampleBytes] (default 256 MiB), and, in a plain shard, against the
// bytes left in the file; in a gzip shard its buffer grows as bytes
// arrive. [NPY] allocates nothing from what a header claims: the data must
// be exactly the bytes that follow the header, and a shape whose size
// overflows int64 is reported as too large. Images are bounded by
// decode.Options.MaxBytes and MaxPixels. The keys of a shard's samples are
// kept during its pass to find split samples.
package webdataset
