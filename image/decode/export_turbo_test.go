//go:build turbojpeg && cgo

package decode

// SetPlanarSIMD sets the conversion of DecodePlanar (0 one value at a
// time, 1 SSSE3, 2 AVX2), at most the processor's best, and returns the
// previous setting.
var SetPlanarSIMD = setPlanarSIMD
