//go:build !race

package race

// Enabled is false: the race detector is off.
const Enabled = false
