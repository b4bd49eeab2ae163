// Package mnist reads IDX files and the MNIST handwritten digits stored in
// them.
//
// # IDX files
//
// IDX is the big-endian tensor format of the MNIST distribution: a magic
// number 00 00 TT DD (TT the element type, DD the number of dimensions), DD
// uint32 sizes, then the elements in row-major order. [NewIDXReader] streams
// an IDX file record by record (a record is one slice along the first
// dimension) and [ReadIDX] reads a whole file; both read every element type
// of the format (ubyte, int8, int16, int32, float32, float64) with any number
// of dimensions. Gzipped files are recognised by their first bytes, not by
// their name, so "x.gz" and "x" are read alike.
//
// # MNIST
//
// [Train], [Test] and [New] name a [Dataset]: a pair of image and label
// files, local or remote. [Dataset.Load] decodes them into a [Table], a
// random-access set of [Sample] (source.Indexed) that source.ReadIndexed
// reads in order, shuffled by index or split over ranks, and resumes at
// any position directly. A Sample's struct tags are its tensors, so
// sink.Of builds the batches with no field list:
//
//	train, err := mnist.Train("data/mnist").Load(ctx)
//	if err != nil {
//		return err
//	}
//	feed := pipeline.Tensorize(pipeline.From(source.ReadIndexed(train, source.ShuffleIndex(42))),
//		sink.Of[mnist.Sample](128, sink.Scale("image", -1, 1)), batch.Keep).Buffered(4)
//
// A Sample refers to its image (24 bytes, not 800), so stages, batches and
// the sink move pointers; the images of a table are decoded once per
// process and shared ([SetCacheBytes] bounds that cache, default 256 MiB).
// The Dataset itself is a source.Reader of the files in their order, one
// record at a time, for a set that is not to be held in memory.
//
// The package reads its format and says how many records there are:
// shuffling, sharding, prefetching and batching are the pipeline's
// (source.ReadIndexed with source.ShuffleIndex and source.ShardIndex,
// pipeline's Buffered and Tensorize), and MXNet's MNISTIter is in package
// compat/mxnet. [Classes] says which labels are valid, [SkipBad] and
// [OnBad] choose what a bad record does, [Storage] how remote files are
// reached, and [WithIDX] passes the limits of the IDX readers. A pass and a
// load log through the logger of their context (tensorfeed.WithLogger),
// as every reader of tensorfeed does.
//
// # Errors
//
// Bad data gives an error that wraps [ErrFormat] (which wraps
// tensorfeed.ErrBadData) and is a [FormatError] naming the file, the byte
// offset in the uncompressed stream and, where there is one, the record: a
// wrong magic number, an empty or truncated file (wrapping
// io.ErrUnexpectedEOF), a gzip stream cut short or corrupt, data after the
// last record, image and label files whose counts differ, a label outside
// the classes. A pass never ends early without an error.
//
// # Limits
//
// A header is never trusted for memory. Before a reader allocates or
// reads anything for the data, it checks what the header declares against
// two settable maximums, [MaxRecordBytes] (default 64 MiB) and
// [MaxFileBytes] (default 1 GiB after decompression), and, for a plain file
// whose size it knows ([InputSize]; [ReadIDX], [CheckIDXFile] and a
// [Dataset] take it from the file system), against the bytes that are
// there. A gzip stream's decompressed size is known only as it is read, so
// [DecodeIDX] grows its buffer as data arrives, and the streaming readers
// hold one record at most. A header that declares records of no bytes (a
// zero dimension after the first) and a non-zero count is refused: such
// records carry nothing and their count cannot be checked.
//
// # Bad records
//
// The only bad record of an MNIST pair is a label that names no class
// (not below [Classes], default 10); images have no invalid pixel values.
// By default it ends the pass with its [FormatError]; [SkipBad] or [OnBad]
// skip such records up to a bound and count them ([Dataset.Skipped]); a
// skipped record is not in a [Table].
// Damage to a file's structure always ends the pass, whatever the policy.
//
// # Checking files
//
// [CheckIDX] and [CheckIDXFile] read a whole IDX file in bounded memory and
// report its element type, dimensions and record count, or its first
// error. [IsIDX] recognises an IDX file, plain or gzipped, from its first
// bytes.
package mnist
