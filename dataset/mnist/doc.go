// Package mnist reads the MNIST handwritten digits: a pair of IDX files,
// the images and their labels, local or remote, plain or gzipped.
//
// [Train], [Test] and [New] name a [Dataset]: a pair of image and label
// files. [Dataset.Load] decodes them into a [Table], a random-access set
// of [Sample] (source.Indexed) that source.ReadIndexed reads in order,
// shuffled by index or split over ranks, and resumes at any position
// directly. A Sample's struct tags are its tensors, so sink.Of builds the
// batches with no field list:
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
// process and shared (a cache of 256 MiB keeps the decoded files). The
// Dataset itself is a source.Reader of the files in their order, one
// record at a time, for a set that is not to be held in memory.
//
// The package reads its files and says how many records there are:
// shuffling, sharding, prefetching and batching are the pipeline's
// (source.ReadIndexed with source.ShuffleIndex and source.ShardIndex,
// pipeline's Buffered and Tensorize), and MXNet's MNISTIter is in package
// compat/mxnet. [Classes] says which labels are valid, [OnBad] what a bad
// record does, [Storage] how remote files are reached, and [MaxFileBytes]
// how much a header may declare. A pass and a load log through the logger
// of their context (tensorfeed.WithLogger), as every reader of tensorfeed
// does.
//
// # Errors
//
// Bad data gives a *tensorfeed.Error naming the file, the byte offset in
// the uncompressed stream and, where there is one, the record, whose Err
// wraps [ErrFormat] (which wraps tensorfeed.ErrBadData) and the cause: a
// wrong magic number, an empty or truncated file (io.ErrUnexpectedEOF), a
// gzip stream cut short or corrupt, data after the last record, image and
// label files whose counts differ, images that are not 28x28, a label
// outside the classes, a header that declares more than [MaxFileBytes]
// ([ErrTooLarge]). A pass never ends early without an error.
//
// # Limits
//
// A header is never trusted for memory. Before a reader allocates or
// reads anything for the data, it checks what the header declares against
// [MaxFileBytes] (default 1 GiB after decompression) and a record size of
// 64 MiB, and, for a plain file, against the file's size. A gzip stream's
// decompressed size is known only as it is read, so [Dataset.Load] grows
// its memory as data arrives, and a pass of the files holds one record.
//
// # Bad records
//
// The only bad record of an MNIST pair is a label that names no class
// (not below [Classes], default 10); images have no invalid pixel values.
// By default it ends the pass with its error; [OnBad] skips such records
// up to a bound and counts them ([Dataset.Skipped]); a skipped record is
// not in a [Table]. Damage to a file's structure always ends the pass,
// whatever the policy.
package mnist
