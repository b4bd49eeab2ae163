//go:build turbojpeg && cgo

package decode

// SetPlanarSIMD turns the SIMD conversion of DecodePlanar off or on and
// returns the previous setting.
var SetPlanarSIMD = setPlanarSIMD
