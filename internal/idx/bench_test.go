package idx_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/idx"
)

// BenchmarkReadFile reads the whole t10k image file into memory.
func BenchmarkReadFile(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(7840016)
	for b.Loop() {
		if _, err := idx.ReadFile(gz("t10k-images-idx3-ubyte")); err != nil {
			b.Fatal(err)
		}
	}
}
