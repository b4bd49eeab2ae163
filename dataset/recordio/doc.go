// Package recordio reads and writes MXNet's RecordIO files (the framing of
// dmlc-core's RecordIOWriter and RecordIOReader), byte-compatible with the
// C++ library. It knows nothing of what a record holds: image records (see
// package imagerec), SageMaker's protobuf records and any other payload use
// the same framing.
//
// # Format
//
// A record is one or more parts. Each part is the magic word 0xced7230a
// (little-endian), a length word lrec = cflag<<29 | length, length data
// bytes and zero padding up to a multiple of 4. A payload that holds the
// magic word at a 4-byte aligned offset is cut there: the magic is dropped
// and the pieces become parts with cflag 1 (first), 2 (middle) and 3 (last);
// a record that was not cut has a single part with cflag 0. The reader joins
// the parts and puts the magic words back. Records are shorter than 2^29
// bytes, and every record starts at a 4-byte aligned offset. Because no
// aligned magic word is left inside the data, a record start can be found
// from any offset ([Sync]), which is what sharding relies on.
//
// An .idx file lists "key\tpos\n" per record, pos being the byte offset of
// the record's first part ([Index]). An index read beside a .rec may be
// stale (the .rec rewritten or truncated) or damaged: [ValidateIndex] checks
// that it lists every record of the .rec exactly once before anything is
// read through it.
//
// # Reading
//
// [Reader] is a pull reader in the style of encoding/csv: Next returns the
// next payload and io.EOF at the end; Offset says where the record began.
// [Open] and [Records] wrap it as a re-iterable source.Reader[[Record]] over
// one or several files, optionally restricted to one [Shard] of them, for
// distributed training. [RandomReader] and [OpenIndexed] read records by
// key, index position or offset through an io.ReaderAt. [OpenShards] opens
// a set of .rec shards with their .idx files, each index checked against its
// shard, as one random-access dataset ([ShardSet]) for source.ReadIndexed:
// a global shuffle over every shard, split between ranks by
// source.ShardIndex.
//
// Every path (a .rec, an .idx) may be local, an s3://bucket/key object or
// an http(s):// URL, opened through package storage with the [Storage]
// option's settings: a pass streams a remote file with read-ahead, a
// [Shard] learns the files' sizes from the storage, and an [IndexedFile]
// reads each record with one range request.
//
// # Writing
//
// [Writer] writes records exactly as dmlc-core does; its Tell gives the
// offsets an .idx file stores, and [AppendIndexLine] / [Index.WriteTo] write
// that file.
//
// # Errors
//
// Malformed input gives a [*tensorfeed.Error] with the file name and byte offset
// of the part at fault (for an .idx file, its line), which wraps [ErrFormat]
// (and io.ErrUnexpectedEOF when the input is truncated). ErrFormat wraps
// tensorfeed.ErrBadData.
//
// A framing error is structural: once a magic word or a length is wrong, the
// reader cannot know how many records the damage covers, so it ends the pass
// rather than resynchronise and lose an unknown number of records. [Sync]
// is there for a tool that wants to salvage the rest of a damaged file.
package recordio
