//go:build race

package recordio_test

func init() { raceEnabled = true }
