package decode_test

import (
	"path/filepath"
)

// The images of the image record test files.
const testdata = "../../dataset/imagerec/testdata"

func tdPath(name, ext string) string { return filepath.Join(testdata, name+ext) }

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
