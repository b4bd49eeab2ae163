package storage_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/storage"
)

// OpenFile gives the same bytes through Read, Seek and ReadAt for a local
// path, an s3:// object and a cached copy.
func TestOpenFile(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(40_000, 13)
	f.put(t, bucket, "o", data)
	path := filepath.Join(t.TempDir(), "o")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := newCache(t, t.TempDir(), 1<<20)
	for name, open := range map[string]func() (storage.File, error){
		"local": func() (storage.File, error) { return storage.OpenFile(context.Background(), path) },
		"s3": func() (storage.File, error) {
			return storage.OpenFile(context.Background(), "s3://data/o", f.opts(storage.ReadAhead(2, 3000))...)
		},
		"cached": func() (storage.File, error) {
			return storage.OpenFile(context.Background(), "s3://data/o", f.opts(storage.WithCache(cache))...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			fh, err := open()
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			if fh.Size() != int64(len(data)) {
				t.Fatalf("Size = %d", fh.Size())
			}
			head := make([]byte, 5000)
			if _, err := io.ReadFull(fh, head); err != nil || !bytes.Equal(head, data[:5000]) {
				t.Fatalf("first read: %v", err)
			}
			if pos, err := fh.Seek(-1000, io.SeekEnd); err != nil || pos != 39_000 {
				t.Fatalf("Seek = %d, %v", pos, err)
			}
			tail, err := io.ReadAll(fh)
			if err != nil || !bytes.Equal(tail, data[39_000:]) {
				t.Fatalf("tail: %d bytes, %v", len(tail), err)
			}
			if _, err := fh.Seek(12_345, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			mid := make([]byte, 100)
			if _, err := io.ReadFull(fh, mid); err != nil || !bytes.Equal(mid, data[12_345:12_445]) {
				t.Fatalf("after Seek: %v", err)
			}
			if _, err := fh.ReadAt(mid, 20_000); err != nil || !bytes.Equal(mid, data[20_000:20_100]) {
				t.Fatalf("ReadAt: %v", err)
			}
		})
	}
}
