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
// [New], [Train] and [Test] return a [Dataset], a source.Reader of [Sample]:
// one 28x28 image as raw bytes with its label. A sample holds no pointers,
// so a pass allocates nothing per sample; the conversion to float32 happens
// where the batch is assembled, through [Dataset.FillImage] (or
// [Scale.Pixels]), which writes straight into the batch's tensor.
//
// # The fast path
//
// [Dataset.Refs] reads the same samples as a [Ref] each: a reference to
// the image in the decoded data set, 24 bytes instead of 800, so stages,
// batches and a sink move pointers, not images. With [Shuffle] the order
// is a permutation of indices over the data set in memory (no shuffle
// buffer to copy samples through), and the image is normalised straight
// from the decoded bytes into the batch's tensor ([Dataset.RefImageField],
// marked WritesAll, so recycled tensors are not cleared first). A
// shuffled pass, and every pass of Refs, over the whole files decodes them
// once per process: [SetCacheBytes] bounds that cache (default 256 MiB)
// and says when a file is read again.
//
//	train := mnist.Train(dir, mnist.Scaling(mnist.ScaleSymmetric), mnist.Shuffle(42))
//	tensors := sink.New(128,
//		[]sink.Field[mnist.Ref]{train.RefImageField("image")},
//		[]sink.Field[mnist.Ref]{sink.Int32("label", nil, mnist.FillRefLabelInt32)})
//	feed := pipeline.Tensorize(pipeline.From(train.Refs()), tensors, batch.Keep).Buffered(4)
//
// # Options
//
// The options follow MXNet's MNISTIter: [Flat] (784 values instead of
// 1x28x28), [Shuffle] with a seed (a new order every epoch), [ShuffleOnce]
// (MXNet's own shuffle: one order, repeated every epoch), [NoShuffle],
// [Scaling]
// (raw bytes, [0,1], [-1,1] as PaddlePaddle's reader, or MXNet's x/256),
// [Shard] (contiguous ranges, as MXNet's parts) and [Prefetch]. Beyond
// MNISTIter, [Classes] says which labels are valid, [SkipBad] and [OnBad]
// choose what a bad record does, and [WithIDX] passes the limits of the
// IDX readers. A pass logs through the logger of its context
// (tensorfeed.WithLogger), as every reader of tensorfeed does.
//
// [MNISTIter] returns a dataset with MNISTIter's defaults (shuffle=True
// and seed=0 as ShuffleOnce(0), x/256 scaling), to batch by
// [MXNetBatchSize] (128) with batch.Drop, as MNISTIter keeps only full
// batches:
//
//	ds := mnist.MNISTIter(images, labels)
//	batches := sink.Tensorize(ds, ds.Sink(mnist.MXNetBatchSize), batch.Drop)
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
// skip such records up to a bound and count them ([Dataset.Skipped]).
// Damage to a file's structure always ends the pass, whatever the policy.
//
// # Checking files
//
// [CheckIDX] and [CheckIDXFile] read a whole IDX file in bounded memory and
// report its element type, dimensions and record count, or its first
// error. [IsIDX] recognises an IDX file, plain or gzipped, from its first
// bytes.
package mnist
