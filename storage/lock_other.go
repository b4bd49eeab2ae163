//go:build !unix

package storage

import "os"

// lockFile does nothing where flock is missing: two processes sharing a
// cache directory may then evict each other's entries at the same time.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }
