// Package race says whether the tests were built with the race detector,
// for the few that it makes too slow (arithmetic in one goroutine, 512 MiB
// records) or whose allocation counts its own bookkeeping hides. test.sh
// runs each test that uses it once more without the detector: a new one
// goes into that list.
package race
