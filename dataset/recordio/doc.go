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
// from any offset, which is what dmlc's byte-range splitting relies on.
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
// [Open] wraps it as a re-iterable, resumable source.Reader[[Record]] over
// the files of a list: a path or URL, several separated by ';', a directory
// (its .rec files) or a glob, as source.Paths expands it. [OpenIndexed]
// opens the same lists with the .idx beside each .rec as one random-access
// dataset ([Indexed]) for source.ReadIndexed, which shuffles it by index
// and splits it between ranks (source.ShardIndex); [RandomReader] reads
// records by offset from any io.ReaderAt. The package has no shuffle or
// shard of its own: sampling is source's and the pipeline's.
//
// Every path (a .rec, an .idx) may be local, an s3://bucket/key object or
// an http(s):// URL, opened through package storage with the [Storage]
// option's settings: a pass streams a remote file with read-ahead, and an
// [Indexed] reads each record with one range request.
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
// rather than resynchronise and lose an unknown number of records.
package recordio
