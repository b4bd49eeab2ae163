package decode

import "github.com/tensorfeed/tensorfeed"

// badData is a sentinel that wraps tensorfeed.ErrBadData while keeping its
// own short message, so that errors built on it do not repeat the root's.
type badData struct{ msg string }

func (e *badData) Error() string { return e.msg }
func (e *badData) Unwrap() error { return tensorfeed.ErrBadData }

// ErrImage is wrapped by every error about image bytes that cannot be
// decoded: an unknown format, a corrupt or truncated JPEG or PNG, an image
// larger than the decoder's bounds (Options.MaxPixels, Options.MaxBytes).
// It wraps tensorfeed.ErrBadData.
var ErrImage error = &badData{"decode: bad image"}

// ErrSize is wrapped by errors about an image too small for what is asked
// of it, such as a crop larger than the image (here, Options.Crop; in
// package augment, the crops). It wraps tensorfeed.ErrBadData: an image too
// small for the configured crop is bad data for that configuration.
var ErrSize error = &badData{"decode: image too small"}
