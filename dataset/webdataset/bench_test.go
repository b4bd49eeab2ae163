package webdataset_test

import (
	"archive/tar"
	"bufio"
	"context"
	"io"
	"os"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
)

// BenchmarkRead reads a shard of 256 samples (a JPEG, a PNG, a class, a
// caption, JSON and a .npy vector each) with the reader, and with the plain
// archive/tar loop a user would write over the same file (each member
// read into a new slice, no grouping), to show what grouping, checks and
// positions cost.
func BenchmarkRead(b *testing.B) {
	samples := makeSamples(b, 256)
	var size int64
	members := 0
	for _, s := range samples {
		members += len(s.Fields)
		for _, f := range s.Fields {
			size += int64(len(f))
		}
	}
	p := writeFile(b, b.TempDir(), "bench.tar", shardBytes(b, samples))
	b.Run("webdataset", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		r := webdataset.Open(p, webdataset.Fields("jpg", "cls"))
		for b.Loop() {
			n := 0
			for _, err := range r.All(context.Background()) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != len(samples) {
				b.Fatalf("%d samples", n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(samples)), "ns/sample")
	})
	b.Run("plain-tar", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			tr := tar.NewReader(bufio.NewReaderSize(f, 64<<10))
			n := 0
			for {
				hdr, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				buf := make([]byte, hdr.Size)
				if _, err := io.ReadFull(tr, buf); err != nil {
					b.Fatal(err)
				}
				n++
			}
			f.Close()
			if n != members {
				b.Fatalf("%d members, want %d", n, members)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(samples)), "ns/sample")
	})
}
