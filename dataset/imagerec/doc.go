// Package imagerec reads MXNet image RecordIO files (.rec, with .idx and
// .lst) the way MXNet's ImageRecordIter does: it decodes JPEG and PNG
// images, augments them, normalises them and yields batches of CHW tensors
// with their labels. The framing of the files is package recordio's.
//
// # Records
//
// An image record is a header (flag, label, id, id2; Header, ParseRecord)
// followed by flag float32 labels when flag > 0, then the encoded image.
// Labels come from the header, or from a .lst file by the record's id
// (ReadList, NewLabels), as ImageRecordIter's path_imglist does.
//
// # Decoding
//
// A Decoder turns JPEG or PNG bytes into a sample.Image (HWC, uint8) of 1,
// 3 or 4 channels. GoDecoder uses image/jpeg and image/png and is always
// there. Built with the tag turbojpeg (go build -tags turbojpeg, cgo and
// Debian's libturbojpeg0-dev), DefaultDecoder decodes JPEG through
// libjpeg-turbo, three to five times faster. A decoder can convert only a
// crop (DecodeOptions.Crop) and, with libjpeg-turbo, decode at a reduced
// scale (DecodeOptions.MinShorter). Undecodable bytes give errors wrapping
// ErrImage; errors about a record name its file, index and byte offset
// (*RecordError).
//
// # Bad input
//
// Every error about bad data wraps one of the package's sentinels (ErrImage,
// ErrHeader, ErrLabel, ErrList, ErrSize) or recordio.ErrFormat, and all of
// them wrap tensorfeed.ErrBadData. Before an image is decoded its header is
// read and the memory the decode will take is computed (sample planes,
// progressive JPEG coefficients, 16-bit and interlaced PNG buffers, the
// result); an image over DecodeOptions.MaxBytes (DefaultMaxDecodeBytes,
// settable as ReadOptions.MaxDecodeBytes and BackendOptions.MaxDecodeBytes)
// is refused, so a decompression bomb costs nothing. An .idx file is checked
// against its .rec before the first record is read (recordio.ValidateIndex):
// a stale or damaged index is an error naming its line, never a reason to
// drop or repeat records. A .lst line with an empty path or a repeated
// index is an error naming the line. Bad records can be skipped, counted
// and reported within a bound (DataOptions.SkipBad, ReadOptions.SkipBad);
// damage to the RecordIO framing always ends the pass.
//
// # Stages
//
// Decode turns a reader of recordio.Record into a reader of Example
// (decoded image and labels). Augment applies augmentation steps (Aug):
// Resize, ResizeTo, RandomAffine, Pad, CenterCrop, RandomCrop, Crop,
// Mirror, RandomMirror, ColorJitter, ToChannels, and any function of the
// same type. Each random step draws from the generator of its sample,
// source.NewRand(seed, epoch, index), so results repeat for a seed and do
// not depend on the number of goroutines. Normalize and ToCHW turn an image
// into a float32 CHW tensor.
//
// # ImageRecordIter
//
// Iter does all of it at once, in parallel and in order, writing every
// image straight into its row of the batch tensor: NewIter takes a Config
// whose groups follow MXNet's parameter groups (DataOptions, BatchOptions,
// AugOptions, Normalize, BackendOptions), and each pass yields
// *sink.Tensors with ProvideData / ProvideLabel describing them up front.
//
// # Speed
//
// libjpeg-turbo decodes JPEG three to five times faster than image/jpeg,
// and decoding is most of the cost of the whole pipeline (decode, crop,
// mirror, normalise, batch); see bench_test.go to measure both on this
// machine.
package imagerec
