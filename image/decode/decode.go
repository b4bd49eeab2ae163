package decode

import (
	"bytes"
	"fmt"
	"image"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Decoder turns encoded image bytes (JPEG or PNG) into pixels.
//
// Two implementations exist: the pure-Go one (Go, image/jpeg and
// image/png), and one that decodes JPEG through libjpeg-turbo, compiled in
// with the build tag turbojpeg. Default returns the faster of those
// the binary holds. A Decoder is safe for concurrent use.
type Decoder interface {
	// Name reports the implementation: "go" or "turbojpeg".
	Name() string
	// Decode decodes data. Errors about the bytes wrap ErrImage; a crop
	// outside the image wraps ErrSize.
	Decode(data []byte, opts Options) (sample.Image, error)
}

// Options says what Decode returns.
type Options struct {
	// Channels is the number of channels of the result: 1 (gray), 3 (RGB)
	// or 4 (RGBA, alpha 255 where the file has none). 0 keeps the file's
	// own: 1 for a gray image, 4 for a PNG with alpha, else 3. Colour is
	// turned to gray as libjpeg and OpenCV do: the Y plane of a JPEG, and
	// 0.299 R + 0.587 G + 0.114 B for a PNG.
	Channels int
	// MinShorter, when positive, lets the decoder shrink the image while it
	// decodes, by a factor that keeps its shorter side at least MinShorter
	// pixels. Only libjpeg-turbo does so (by 1/2, 1/4 or 1/8, through its
	// scaling factors); use it when the image is resized to that size next.
	MinShorter int
	// MaxPixels bounds width*height of the images Decode accepts: a larger
	// image is an error wrapping ErrImage. 0 means DefaultMaxPixels.
	MaxPixels int
	// MaxBytes bounds the memory one decode may allocate, result included,
	// so that a small file whose header claims a huge image (a
	// decompression bomb) cannot take gigabytes. Pixels alone do not say
	// it: a progressive JPEG keeps the coefficients of every block, 12 bytes
	// a pixel for three full-resolution components with image/jpeg, and a
	// 16-bit PNG takes 8 bytes a pixel. Before decoding, the decoder reads
	// the header (JPEG frame header, PNG IHDR) and computes what it will
	// allocate for that size, sampling, precision, progressive or
	// interlaced mode and channel count; an image over the bound is an
	// error wrapping ErrImage and nothing is decoded. 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// Crop, when set, is called with the size of the decoded image and
	// returns the rectangle to keep; only those pixels are converted. An
	// error from Crop is returned by Decode as it is.
	Crop func(width, height int) (image.Rectangle, error)
}

// DefaultMaxPixels is the largest image Decode accepts by default: 2^26
// pixels, an 8192 x 8192 square.
const DefaultMaxPixels = 1 << 26

// checkSize rejects an empty image or one larger than opts allows.
func checkSize(f Format, opts *Options, w, h int) error {
	limit := opts.MaxPixels
	if limit <= 0 {
		limit = DefaultMaxPixels
	}
	if w < 1 || h < 1 || int64(w)*int64(h) > int64(limit) {
		return fmt.Errorf("%w: %s: %dx%d image (at most %d pixels)", ErrImage, f, w, h, limit)
	}
	return nil
}

// Format is the encoding of an image, found from its first bytes.
type Format uint8

// The image encodings a record may hold.
const (
	FormatUnknown Format = iota
	FormatJPEG
	FormatPNG
)

var formatNames = [...]string{"unknown", "jpeg", "png"}

// String returns "jpeg", "png" or "unknown".
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// Sniff returns the format of data from its first bytes: FF D8 for JPEG
// (any JFIF, Exif or bare marker that follows), the PNG signature for PNG.
func Sniff(data []byte) Format {
	switch {
	case len(data) >= 2 && data[0] == 0xff && data[1] == 0xd8:
		return FormatJPEG
	case bytes.HasPrefix(data, pngMagic):
		return FormatPNG
	}
	return FormatUnknown
}

// checkChannels panics on a channel count no decoder supports: a
// programmer's error.
func checkChannels(ch int) {
	if ch != 0 && ch != 1 && ch != 3 && ch != 4 {
		panic(fmt.Sprintf("decode: Decode: %d channels (want 0, 1, 3 or 4)", ch))
	}
}

// cropRect asks opts.Crop for the rectangle to keep of a w x h image and
// checks that it lies inside the image.
func cropRect(opts *Options, w, h int) (image.Rectangle, error) {
	full := image.Rect(0, 0, w, h)
	if opts.Crop == nil {
		return full, nil
	}
	r, err := opts.Crop(w, h)
	if err != nil {
		return r, err
	}
	if r.Empty() || !r.In(full) {
		return r, fmt.Errorf("%w: crop %v outside the %dx%d image", ErrSize, r, w, h)
	}
	return r, nil
}

func imageErr(format Format, err error) error {
	return fmt.Errorf("%w: %s: %v", ErrImage, format, err)
}

// RegionDecoder is implemented by decoders that can lend a decoded image
// that holds the crop, with the crop's rectangle in it, instead of copying
// the crop out: a caller that converts the pixels anyway (to a CHW tensor)
// saves a copy.
type RegionDecoder interface {
	Decoder
	// DecodeRegion decodes data as Decode does with opts, but returns an
	// image that holds the crop and the rectangle of the crop in it: the
	// whole image and the rectangle opts.Crop chose, or only the part of
	// the image the decoder decoded around it (libjpeg-turbo decodes only
	// the rows of the crop and the columns near it). The crop's pixels are
	// those Decode returns. With Crop nil the image is the whole image.
	// full is valid until release is called; release must be called once,
	// and only when err is nil.
	DecodeRegion(data []byte, opts Options) (full sample.Image, r image.Rectangle, release func(), err error)
}

// Planar is the conversion PlanarDecoder applies to every pixel of the
// crop: value v of channel c becomes (float32(v)-Mean[c])*Mul[c] + Bias[c],
// each operation rounded to float32, written at its place in the crop, or
// at the place mirrored left to right when Mirror is set.
type Planar struct {
	Mean, Mul, Bias [4]float32
	Mirror          bool
}

// PlanarDecoder is implemented by decoders that can write a crop straight
// into a float32 CHW tensor while they decode, with no image in between
// (libjpeg-turbo converts each group of rows as it comes out of the
// decompressor).
type PlanarDecoder interface {
	Decoder
	// DecodePlanar decodes data as Decode does with opts, and writes the
	// crop opts.Crop chooses into dst (channels, then rows, then columns)
	// converted by the Planar that planar returns; planar is called once,
	// after opts.Crop and before any pixel is written. The values are
	// those that the crop Decode returns gives through the same
	// conversion, bit for bit. dst must hold Channels * height * width of
	// the crop; after an error its contents are unspecified.
	//
	// ok false means the decoder cannot do it for this data and these
	// options (not a JPEG it decodes itself, Channels other than 3,
	// MinShorter set or Crop nil): nothing was decoded, neither opts.Crop
	// nor planar was called, and the caller decodes another way. Errors are
	// those of Decode (ok is then true).
	DecodePlanar(data []byte, opts Options, dst []float32, planar func() Planar) (ok bool, err error)
}
