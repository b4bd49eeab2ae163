package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/storage"
)

func readAll(t testing.TB, o storage.File) []byte {
	t.Helper()
	b, err := io.ReadAll(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newCache(t testing.TB, dir string, max int64) *storage.Cache {
	t.Helper()
	c, err := storage.NewCache(dir, max)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A cached object is read from the directory, also by a new Cache on the
// same directory (a restart): no range request reaches the server.
func TestCacheWarmAcrossRestart(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(200_000, 7)
	f.put(t, bucket, "o", data)
	dir := t.TempDir()
	o := mustOpen(t, "s3://data/o", f.opts(storage.WithCache(newCache(t, dir, 1<<20)))...)
	if got := readAll(t, o); !bytes.Equal(got, data) {
		t.Fatal("cold read differs")
	}
	cold := f.gets.Load()
	if cold == 0 {
		t.Fatal("the cold open made no range request")
	}
	o2 := mustOpen(t, "s3://data/o", f.opts(storage.WithCache(newCache(t, dir, 1<<20)))...)
	if got := readAll(t, o2); !bytes.Equal(got, data) {
		t.Fatal("warm read differs")
	}
	p := make([]byte, 100)
	if _, err := o2.ReadAt(p, 5000); err != nil || !bytes.Equal(p, data[5000:5100]) {
		t.Fatal(err)
	}
	if n := f.gets.Load(); n != cold {
		t.Errorf("%d range requests after the warm open, want %d", n, cold)
	}
	if o2.ETag() != o.ETag() || o2.Size() != o.Size() {
		t.Errorf("warm open: ETag %q size %d, want %q %d", o2.ETag(), o2.Size(), o.ETag(), o.Size())
	}
}

// An object replaced since it was cached is an error naming the URL; after
// Remove the new version is fetched.
func TestCacheObjectChanged(t *testing.T) {
	f := newFakeS3(t, bucket)
	f.put(t, bucket, "o", []byte("version one"))
	c := newCache(t, t.TempDir(), 1<<20)
	readAll(t, mustOpen(t, "s3://data/o", f.opts(storage.WithCache(c))...))
	f.put(t, bucket, "o", []byte("version two!"))
	_, err := storage.OpenFile(context.Background(), "s3://data/o", f.opts(storage.WithCache(c))...)
	if !errors.Is(err, storage.ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	wantContains(t, err, "s3://data/o")
	if err := c.Remove("s3://data/o"); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, mustOpen(t, "s3://data/o", f.opts(storage.WithCache(c))...)); string(got) != "version two!" {
		t.Fatalf("after Remove: %q", got)
	}
}

// The cache cannot take the object: an ErrCacheWrite error, or direct range
// reads with CacheFallback.
func TestCacheCannotWrite(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(10_000, 8)
	f.put(t, bucket, "o", data)

	small := newCache(t, t.TempDir(), 1000)
	notDirPath := filepath.Join(t.TempDir(), "c")
	notDir := newCache(t, notDirPath, 1<<20)
	// The directory replaced by a file: every write fails, even as root.
	if err := os.RemoveAll(notDirPath); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notDirPath, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*storage.Cache{"smaller than the object": small, "unwritable": notDir} {
		t.Run(name, func(t *testing.T) {
			_, err := storage.OpenFile(context.Background(), "s3://data/o", f.opts(storage.WithCache(c))...)
			if !errors.Is(err, storage.ErrCacheWrite) {
				t.Fatalf("err = %v, want ErrCacheWrite", err)
			}
			wantContains(t, err, "s3://data/o")
			o := mustOpen(t, "s3://data/o", f.opts(storage.WithCache(c), storage.CacheFallback())...)
			if got := readAll(t, o); !bytes.Equal(got, data) {
				t.Fatal("fallback read differs")
			}
		})
	}
	if used, _ := small.Used(); used != 0 {
		t.Errorf("the small cache holds %d bytes", used)
	}
}

// The least recently used entry goes first, and the limit holds.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	f := newFakeS3(t, bucket)
	for _, k := range []string{"a", "b", "c"} {
		f.put(t, bucket, k, randomBytes(1000, uint64(k[0])))
	}
	dir := t.TempDir()
	c := newCache(t, dir, 2500)
	open := func(k string) {
		t.Helper()
		o := mustOpen(t, "s3://data/"+k, f.opts(storage.WithCache(c))...)
		if got := readAll(t, o); !bytes.Equal(got, randomBytes(1000, uint64(k[0]))) {
			t.Fatalf("%s differs", k)
		}
		time.Sleep(20 * time.Millisecond) // distinct modification times
	}
	open("a")
	open("b")
	open("a") // a is now more recent than b
	before := f.gets.Load()
	open("c") // evicts b
	if used, err := c.Used(); err != nil || used > 2500 {
		t.Fatalf("Used = %d, %v; want at most 2500", used, err)
	}
	open("a")
	if n := f.gets.Load(); n != before+1 {
		t.Errorf("a was fetched again (%d requests, want %d)", n, before+1)
	}
	open("b")
	if n := f.gets.Load(); n != before+2 {
		t.Errorf("b was not evicted (%d requests, want %d)", n, before+2)
	}
}

// Two caches on one directory at once (as two processes would be) stay
// under the limit and serve correct bytes.
func TestCacheSharedDirectory(t *testing.T) {
	f := newFakeS3(t, bucket)
	const objects, size = 8, 3000
	for i := range objects {
		f.put(t, bucket, fmt.Sprint(i), randomBytes(size, uint64(i)))
	}
	dir := t.TempDir()
	caches := []*storage.Cache{newCache(t, dir, 3*size), newCache(t, dir, 3*size)}
	var wg sync.WaitGroup
	errs := make(chan error, 2*3*objects)
	for w, c := range caches {
		wg.Go(func() {
			for round := range 3 {
				for j := range objects {
					i := (j + w*3 + round) % objects
					o, err := storage.OpenFile(context.Background(), fmt.Sprintf("s3://data/%d", i), f.opts(storage.WithCache(c))...)
					if err != nil {
						errs <- err
						continue
					}
					b := make([]byte, size)
					if _, err := o.ReadAt(b, 0); err != nil {
						errs <- err
					} else if !bytes.Equal(b, randomBytes(size, uint64(i))) {
						errs <- fmt.Errorf("object %d differs", i)
					}
					o.Close()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if used, err := caches[0].Used(); err != nil || used > 3*size {
		t.Fatalf("Used = %d, %v; want at most %d", used, err, 3*size)
	}
}
