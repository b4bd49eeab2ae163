package format_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/format"
)

// FuzzDetectFile checks that Detect never panics on any file, read from disk
// as a user's path is (FuzzDetect covers the detection itself).
func FuzzDetectFile(f *testing.F) {
	f.Add([]byte("a,b\n"))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte{0, 0, 8, 1, 0, 0, 0, 1, 7})
	f.Fuzz(func(t *testing.T, head []byte) {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, head, 0o644); err != nil {
			t.Fatal(err)
		}
		format.Default().Detect(t.Context(), path)
	})
}
