//go:build !turbojpeg || !cgo

package imagerec

// DefaultDecoder returns the fastest decoder this binary holds. Built
// without the tag turbojpeg (or without cgo) that is GoDecoder; with it,
// libjpeg-turbo for JPEG and image/png for PNG.
func DefaultDecoder() Decoder { return GoDecoder() }
