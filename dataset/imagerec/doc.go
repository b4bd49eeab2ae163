// Package imagerec reads MXNet's image RecordIO format (.rec, with .idx
// and .lst): the record header and its labels, im2rec's .lst lists, the
// mean image file, and readers that decode and augment the records. The
// framing of the files is package dataset/recordio's; decoding is package
// image/decode's and augmentation package image/augment's. MXNet's
// ImageRecordIter, with its parameter names, is compat/mxnet's.
//
// # Records
//
// An image record is a header (flag, label, id, id2; Header, ParseRecord,
// AppendRecord) followed by flag float32 labels when flag > 0, then the
// encoded image. A .lst file (ReadList, ParseList, WriteList) gives each
// image's index, which its record carries as the id, its labels and its
// path. A mean image file (ParseMeanImage, WriteMeanImage) is MXNet's
// NDArray of the per-pixel mean.
//
// # Readers
//
// Decode turns a reader of recordio.Record into a reader of Example
// (decoded image and labels), in order; Augment applies an augment.Aug to
// every Example, each drawing from the generator of its sample,
// source.NewRand(seed, epoch, index), so results repeat for a seed and do
// not depend on where they run. Decoding on several goroutines is the
// pipeline's: pipeline.ParallelMap of DecodeRecord, or a sink.Fill field
// that decodes and augments each image straight into its row of the batch
// under pipeline.Tensorize's Workers and OnBad (compat/mxnet's
// ImageRecordIter). Sampling
// (source.ShuffleIndex and source.ShardIndex over recordio.OpenIndexed,
// or the pipeline's Shuffle and Shard), batching and tensors (a sink) are
// the pipeline's steps, as for every format: see the package's pipeline
// example.
//
// # Bad input
//
// Every error about bad data wraps one of the package's sentinels
// (ErrHeader, ErrList, ErrMeanImage), decode.ErrImage,
// decode.ErrSize or recordio.ErrFormat, and all of them wrap
// tensorfeed.ErrBadData; errors about a record are *tensorfeed.Error
// values naming its file, index and byte offset. An image whose decode
// would take more than decode.Options.MaxBytes is refused from its header,
// so a decompression bomb costs nothing. A mean image file's counts are
// checked against the bytes present. A .lst line with an empty path or a
// repeated index is an error naming the line. Bad records can be skipped,
// counted and reported within a bound (Decode's policy, or Tensorize's
// OnBad); damage to the RecordIO
// framing always ends the pass.
//
// # Speed
//
// Decoding is most of the cost of an image pipeline (decode, crop, mirror,
// normalise, batch); libjpeg-turbo (build tag turbojpeg) is faster than
// image/jpeg. The README's table and compat/mxnet's benchmarks measure
// both.
package imagerec
