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
// On the benchmark photos (about 256 x 300 JPEG, see bench_test.go) the
// libjpeg-turbo decoder takes about 0.3 ms of CPU per image and the whole
// pipeline (decode, random 224 x 224 crop, mirror, mean/std, float32 CHW,
// batches of 128) about 0.5 ms; the Go decoder about 1.3 ms and 1.5 ms.
package imagerec
