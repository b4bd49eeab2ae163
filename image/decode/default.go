//go:build !turbojpeg || !cgo

package decode

// Default returns the fastest decoder this binary holds. Built
// without the tag turbojpeg (or without cgo) that is Go; with it,
// libjpeg-turbo for JPEG and image/png for PNG.
func Default() Decoder { return Go() }
