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
// The options follow MXNet's MNISTIter: [Flat] (784 values instead of
// 1x28x28), [Shuffle] with a seed (a new order every epoch), [Scaling]
// (raw bytes, [0,1], [-1,1] as PaddlePaddle's reader, or MXNet's x/256),
// [Parts] (num_parts / part_index: contiguous ranges, as MXNet) and
// [Prefetch].
//
// # Errors
//
// Bad data gives an error that wraps [ErrFormat] and names the file and the
// byte offset in the uncompressed stream: a wrong magic number, an empty or
// truncated file, a gzip stream cut short or corrupt, data after the last
// record, image and label files whose counts differ. A pass never ends early
// without an error.
package mnist
