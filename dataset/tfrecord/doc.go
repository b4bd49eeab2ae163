// Package tfrecord reads and writes TensorFlow's TFRecord files, plain or
// gzip-compressed, and decodes and encodes the tf.train.Example messages
// they usually hold.
//
// # Format
//
// A TFRecord file is a sequence of records, each
//
//	uint64 length            (little-endian)
//	uint32 masked CRC32C of the 8 length bytes
//	byte   data[length]
//	uint32 masked CRC32C of the data
//
// where the CRC is CRC-32C (Castagnoli) and masking rotates it right by 15
// bits and adds 0xa282ead8 ([MaskedCRC]). A file may be gzip-compressed as a
// whole; the reader detects it from the gzip magic (a plain file whose
// first length starts with those bytes is told apart by its header CRC).
//
// # Reading
//
// [Open] returns a re-iterable source.Reader[[Record]] over one file or a
// list of files: each pass reads the records one after another. TFRecord has no sync
// marker, so a file cannot be cut into byte ranges: to shard over ranks,
// put stage.Shard on the reader (every rank reads the file and keeps its
// share).
//
// Paths may be local, s3://bucket/key objects or http(s):// URLs, opened
// through package storage when a pass starts; the [Storage] option passes
// storage's options (endpoint, credentials, retries, read-ahead, a local
// cache).
//
// # Examples
//
// [ParseExample] decodes a serialized tf.train.Example into an [Example]
// with typed accessors (Float32s, Int64s, Bytes) whose errors name the
// feature; [Example.Marshal] encodes one, and [Record.Example] parses a
// record with an error that names its file and position. The protobuf wire
// format is decoded by hand with google.golang.org/protobuf/encoding/protowire
// rather than through generated code: there is no .proto to keep in step,
// and no reflection.
//
// Parsing checks the whole Example and counts its features and values
// before it allocates anything, then allocates every list once at its
// final size. By default an Example may hold at most [MaxFeatures]
// (16384) features and [MaxValues] (1 Mi) bytes_list and int64_list
// values; [MaxFeatures] and [MaxValues] change that. A record over a limit
// is refused, before any allocation, with an error that wraps ErrTooLarge
// (and, from [Record.Example], names the file, the record and its offset).
// What a parse allocates is at most 4 times the record's size, plus at
// most 16 bytes for each counted value, 256 for each feature and 4 KiB
// (short values and features cost more decoded than on the wire): 20 MiB
// with the default limits.
//
// # Writing
//
// [Writer] writes records in the same framing, optionally through gzip
// ([GzipLevel]).
//
// # Errors
//
// Malformed input gives a [*tensorfeed.Error] with the file name, the record's
// index and its byte offset (counted in the decompressed stream for gzip),
// which wraps [ErrFormat] and, for a truncated input, io.ErrUnexpectedEOF.
// ErrFormat wraps tensorfeed.ErrBadData.
//
// A record whose data does not match its CRC wraps [ErrDataChecksum]: the
// framing is intact, so a bad-record policy ([OnBad]) may skip it.
// Any other damage (a length whose CRC is wrong, a length past the end of
// the file or over [MaxRecordBytes], a truncated file, a broken gzip stream)
// ends the pass: what follows cannot be trusted.
//
// Memory is bounded: a length over the maximum, or past the end of a plain
// file, is refused before anything is allocated for it, and for a gzip
// stream the buffer grows only as the bytes of the record arrive.
package tfrecord
