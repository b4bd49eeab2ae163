// Package decode turns JPEG and PNG bytes into pixels: a sample.Image, HWC,
// uint8, of 1, 3 or 4 channels.
//
// # Decoders
//
// A [Decoder] decodes with the [Options] of one call. [Go] uses image/jpeg
// and image/png and is always there. Built with the tag turbojpeg (go build
// -tags turbojpeg, cgo and Debian's libturbojpeg0-dev), [Default] decodes
// JPEG through libjpeg-turbo, which is faster (see the README's table). A
// decoder can convert only a crop (Options.Crop) and, with libjpeg-turbo,
// decode at a reduced scale (Options.MinShorter). A decoder that can lend
// its decoded pixels instead of copying a crop out implements
// [RegionDecoder]; one that can write a crop straight into a normalised
// float32 CHW tensor while it decodes, with no image in between,
// implements [PlanarDecoder] (libjpeg-turbo's, for 3 channels).
//
// # Crops with libjpeg-turbo
//
// libjpeg-turbo decodes a crop of a full-scale JPEG through libjpeg's
// jpeg_crop_scanline and jpeg_skip_scanlines: the inverse DCT, upsampling
// and colour conversion run only for the crop's rows and the whole iMCU
// columns around it (16 pixels more on each side, so that no edge of what
// is decoded touches the crop), and the other rows are only
// entropy-decoded. The pixels are those of a full decode, bit for bit; a
// corrupt or truncated stream is an error as in a full decode, wherever
// the damage lies. MinShorter's reduced scales decode the whole image.
//
// # Bad input
//
// Undecodable bytes give errors wrapping [ErrImage]; a crop larger than the
// image gives one wrapping [ErrSize]. Both wrap tensorfeed.ErrBadData.
// Before an image is decoded its header is read and the memory the decode
// will take is computed (sample planes, progressive JPEG coefficients,
// 16-bit and interlaced PNG buffers, the result); an image over
// Options.MaxBytes ([DefaultMaxBytes] by default) is refused before anything
// is allocated, so a decompression bomb costs nothing.
package decode
