// Package imagerec reads MXNet image RecordIO files (.rec, with .idx and
// .lst) the way MXNet's ImageRecordIter does, and yields batches of CHW
// tensors with their labels. The framing of the files is package
// dataset/recordio's; decoding is package image/decode's and augmentation
// package image/augment's.
//
// # Records
//
// An image record is a header (flag, label, id, id2; Header, ParseRecord)
// followed by flag float32 labels when flag > 0, then the encoded image.
// Labels come from the header, or from a .lst file by the record's id
// (ReadList, NewLabels), as ImageRecordIter's path_imglist does.
//
// # ImageRecordIter
//
// New returns an Iter that decodes, augments and normalises every image in
// parallel and in order, writing it straight into its row of the batch
// tensor. It is configured by options named after ImageRecordIter's
// parameters:
//
//	it, err := imagerec.New("train.rec",
//		imagerec.DataShape(3, 224, 224), // data_shape
//		imagerec.Batch(128),             // batch_size
//		imagerec.Index("train.idx"),     // path_imgidx
//		imagerec.Shuffle(seed),          // shuffle, seed
//		imagerec.RandCrop(),             // rand_crop
//		imagerec.RandMirror(),           // rand_mirror
//		imagerec.Shard(workers, rank),   // num_parts, part_index
//	)
//
// The data may be several .rec files: New takes a ";"-separated list or a
// directory (its .rec files in name order), Index then one .idx per .rec,
// and Shard cuts all files as one stream.
//
// MeanImg reads MXNet's mean image file (mean_img, NDArray format:
// ParseMeanImage), or computes the per-pixel mean in a pass over the data
// and saves it (WriteMeanImage) when the file is missing, as MXNet does.
//
// Each pass yields *tensor.Batch values, with ProvideData and ProvideLabel
// describing them up front. The consumer calls Release on each batch when
// done with it, and the Iter fills the same memory again. The logger of a
// pass is the one of its context (tensorfeed.WithLogger).
//
// # Stages
//
// Decode turns a reader of recordio.Record into a reader of Example
// (decoded image and labels); Augment applies an augment.Aug to every
// Example. Each random step draws from the generator of its sample,
// source.NewRand(seed, epoch, index), so results repeat for a seed and do
// not depend on the number of goroutines.
//
// # Bad input
//
// Every error about bad data wraps one of the package's sentinels (ErrHeader,
// ErrLabel, ErrList), decode.ErrImage, decode.ErrSize or recordio.ErrFormat,
// and all of them wrap tensorfeed.ErrBadData; errors about a record are
// *tensorfeed.Error values naming its file, index and byte offset. An image whose
// decode would take more than MaxDecodeBytes is refused from its header, so
// a decompression bomb costs nothing. An .idx file is checked against its
// .rec before the first record is read (recordio.ValidateIndex): a stale or
// damaged index is an error naming its line, never a reason to drop or
// repeat records. A mean image file is read no further than an array of
// the data shape can reach, and every count in it is checked against the
// bytes present. A .lst line with an empty path or a repeated index is an
// error naming the line. Bad records can be skipped, counted and reported
// within a bound (SkipBad); damage to the RecordIO framing always ends the
// pass.
//
// # Speed
//
// Decoding is most of the cost of the whole pipeline (decode, crop,
// mirror, normalise, batch); libjpeg-turbo (build tag turbojpeg) is faster
// than image/jpeg. The README's table and bench_test.go measure both.
package imagerec
