// Package augment changes decoded images (sample.Image, HWC, uint8) the
// way MXNet's image augmenters do, and turns them into the CHW tensors a
// model reads.
//
// # Steps
//
// An [Aug] is one step: [Resize], [ResizeTo], [RandomAffine], [Pad],
// [CenterCrop], [RandomCrop], [Crop], [Mirror], [RandomMirror],
// [ColorJitter], [ToChannels], or any function of the same type; [Compose]
// chains them. A random step draws from the generator it is given, which a
// pipeline derives from (seed, epoch, sample index)
// (source.NewRand), so results repeat for a seed and do not depend on which
// goroutine ran the step. Steps never modify their input's pixels.
//
// The building blocks are exported for code that fuses steps, as
// compat/mxnet's ImageRecordIter does: [ResizeImage], [CropImage],
// [Affine.Check] and [Affine.Enabled]; [CenterRect] gives
// decode.Options.Crop the centred crop.
//
// # Tensors
//
// [Normalize] writes an image into a float32 CHW tensor with MXNet's mean,
// std, scale and random contrast and illumination (the zero Normalize
// converts without normalising). [Normalize.IntoRect] reads a rectangle
// straight from a larger image, so a crop is never copied.
//
// # Errors
//
// An image too small for a step (a crop larger than the image, an affine
// warp to less than a pixel) gives an error wrapping decode.ErrSize, which
// wraps tensorfeed.ErrBadData. Parameters no image could satisfy (a
// negative size, an unknown channel count) panic when the step is made.
package augment
