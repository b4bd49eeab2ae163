//go:build race

package mxnet

// The race detector allocates for its own bookkeeping (and sync.Pool drops
// items on purpose), so allocation counts are not checked under it.
func init() { raceEnabled = true }
