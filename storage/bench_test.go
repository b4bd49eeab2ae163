package storage_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/storage"
)

// BenchmarkSequentialRead reads a 16 MiB object from the start to the end:
// from a local file (os.File), from gofakes3 over HTTP on 127.0.0.1 through
// the read-ahead reader (cold), and from the cache once it holds the object
// (warm).
func BenchmarkSequentialRead(b *testing.B) {
	const size = 16 << 20
	data := randomBytes(size, 12)
	path := filepath.Join(b.TempDir(), "shard.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	f := newFakeS3(b, bucket)
	f.put(b, bucket, "shard.bin", data)
	ctx := context.Background()
	buf := make([]byte, 1<<20)
	drain := func(b *testing.B, r io.Reader) {
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
		if err != nil || n != size {
			b.Fatalf("read %d bytes, %v", n, err)
		}
	}

	b.Run("os.File", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			fh, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			drain(b, fh)
			fh.Close()
		}
	})
	for _, ra := range []struct {
		name     string
		n, block int
	}{{"s3-cold-readahead-4x1MiB", 4, 1 << 20}, {"s3-cold-readahead-4x4MiB", 4, 4 << 20}, {"s3-cold-no-readahead-1x1MiB", 1, 1 << 20}} {
		b.Run(ra.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				o, err := storage.OpenFile(ctx, "s3://data/shard.bin", f.opts(storage.ReadAhead(ra.n, ra.block))...)
				if err != nil {
					b.Fatal(err)
				}
				r := o
				drain(b, r)
				r.Close()
				o.Close()
			}
		})
	}
	// The same with 5 ms added to every range request, as between a
	// training machine and an object store: read-ahead overlaps them.
	for _, ra := range []struct {
		name     string
		n, block int
	}{{"s3-5ms-readahead-8x1MiB", 8, 1 << 20}, {"s3-5ms-no-readahead-1x1MiB", 1, 1 << 20}} {
		b.Run(ra.name, func(b *testing.B) {
			f.mu.Lock()
			f.delay = 5 * time.Millisecond
			f.mu.Unlock()
			defer func() {
				f.mu.Lock()
				f.delay = 0
				f.mu.Unlock()
			}()
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				o, err := storage.OpenFile(ctx, "s3://data/shard.bin", f.opts(storage.ReadAhead(ra.n, ra.block))...)
				if err != nil {
					b.Fatal(err)
				}
				r := o
				drain(b, r)
				r.Close()
				o.Close()
			}
		})
	}
	cache, err := storage.NewCache(b.TempDir(), 1<<30)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("s3-warm-cache", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			o, err := storage.OpenFile(ctx, "s3://data/shard.bin", f.opts(storage.WithCache(cache))...)
			if err != nil {
				b.Fatal(err)
			}
			r := o
			drain(b, r)
			r.Close()
			o.Close()
		}
	})
}
