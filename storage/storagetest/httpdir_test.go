package storagetest_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

func TestServeDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.bin"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, log := storagetest.ServeDir(t, dir)
	ctx := context.Background()
	f, err := storage.OpenFile(ctx, srv.URL+"/a.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log.Reset()
	b := make([]byte, 3)
	if _, err := f.ReadAt(b, 6); err != nil && err != io.EOF || string(b) != "678" {
		t.Fatalf("%q, %v", b, err)
	}
	if n, reqs := log.Before("/a.bin", 6); n != 0 || reqs != 1 {
		t.Fatalf("before 6: %d bytes in %d requests, want 0 in 1", n, reqs)
	}
	if n, _ := log.Before("/a.bin", 8); n != 2 {
		t.Fatalf("before 8: %d bytes, want 2", n)
	}
	log.Reset()
	if _, reqs := log.Before("/a.bin", 10); reqs != 0 {
		t.Fatalf("%d requests after Reset", reqs)
	}
}
