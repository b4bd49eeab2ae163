package readertest

import (
	"context"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

// Passes runs one pass of r per benchmark iteration, fails when a pass errs
// or yields other than perPass elements, and reports allocations and the
// cost per element as "ns/sample".
func Passes[T any](b *testing.B, r source.Reader[T], perPass int) {
	b.Helper()
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		n := 0
		for _, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != perPass {
			b.Fatalf("pass yielded %d samples, want %d", n, perPass)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perPass), "ns/sample")
}
