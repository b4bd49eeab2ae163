package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Shards of a dataset in an S3-compatible store (here gofakes3, an
// in-process S3 server): list them, read one from the start with
// read-ahead, and read a byte range of another.
func Example() {
	backend := s3mem.New()
	backend.CreateBucket("datasets")
	for i, text := range []string{"shard zero", "shard one", "shard two"} {
		data := []byte(text)
		meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
		backend.PutObject("datasets", fmt.Sprintf("mnist/train-%03d.rec", i), meta, bytes.NewReader(data), int64(len(data)), nil)
	}
	server := httptest.NewServer(gofakes3.New(backend).Server())
	defer server.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()

	ctx := context.Background()
	opts := []storage.Option{
		storage.Endpoint(server.URL), // or AWS_ENDPOINT_URL
		storage.Credentials("key", "secret", ""),
		storage.Transport(transport),
	}
	shards, err := storage.List(ctx, "s3://datasets/mnist/train-*.rec", opts...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(shards)

	first, err := storage.OpenFile(ctx, shards[0], opts...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer first.Close()
	all, err := io.ReadAll(first) // streams, with read-ahead
	fmt.Printf("%s: %d bytes %q %v\n", first.Name(), first.Size(), all, err)

	last, err := storage.OpenFile(ctx, shards[2], opts...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer last.Close()
	word := make([]byte, 3)
	_, err = last.ReadAt(word, 6)
	fmt.Printf("bytes 6-8 of %s: %q %v\n", last.Name(), word, err)

	_, err = storage.OpenFile(ctx, "s3://datasets/mnist/missing.rec", opts...)
	fmt.Println(err)
	var e *tensorfeed.Error // every error of storage: Path, Offset (-1: the whole object)
	fmt.Println(errors.As(err, &e), e.Path, e.Offset, errors.Is(err, storage.ErrNotFound))
	// Output:
	// [s3://datasets/mnist/train-000.rec s3://datasets/mnist/train-001.rec s3://datasets/mnist/train-002.rec]
	// s3://datasets/mnist/train-000.rec: 10 bytes "shard zero" <nil>
	// bytes 6-8 of s3://datasets/mnist/train-002.rec: "two" <nil>
	// s3://datasets/mnist/missing.rec: storage: open: HTTP 404 Not Found: NoSuchKey: The specified key does not exist.
	// true s3://datasets/mnist/missing.rec -1 true
}

// A cache keeps whole objects in a directory under a byte limit; the second
// Open of an object reads the local copy.
func ExampleWithCache() {
	backend := s3mem.New()
	backend.CreateBucket("datasets")
	data := []byte("a shard worth caching")
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	backend.PutObject("datasets", "train.rec", meta, bytes.NewReader(data), int64(len(data)), nil)
	server := httptest.NewServer(gofakes3.New(backend).Server())
	defer server.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()

	dir, _ := os.MkdirTemp("", "cache")
	defer os.RemoveAll(dir)
	cache, err := storage.NewCache(filepath.Join(dir, "tensorfeed"), 1<<30)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	opts := []storage.Option{
		storage.Endpoint(server.URL),
		storage.Credentials("key", "secret", ""),
		storage.Transport(transport),
		storage.WithCache(cache),
		storage.CacheFallback(), // read directly if the disk is full
	}
	for range 2 {
		o, err := storage.OpenFile(ctx, "s3://datasets/train.rec", opts...)
		if err != nil {
			fmt.Println(err)
			return
		}
		p := make([]byte, 7)
		o.ReadAt(p, 2)
		o.Close()
		used, _ := cache.Used()
		fmt.Printf("%q, cache holds %d bytes\n", p, used)
	}
	// Output:
	// "shard w", cache holds 21 bytes
	// "shard w", cache holds 21 bytes
}

// OpenFile is the replacement of os.Open for a reader that should take a
// path or a URL: the same Read, ReadAt, Seek and Close, and Size instead of
// a Stat.
func ExampleOpenFile() {
	dir, _ := os.MkdirTemp("", "shards")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "train-000.txt")
	os.WriteFile(path, []byte("header\nrecord one\nrecord two\n"), 0o644)

	f, err := storage.OpenFile(context.Background(), path) // or s3://bucket/train-000.txt
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	f.Seek(7, io.SeekStart)
	rest, _ := io.ReadAll(f)
	fmt.Printf("%d bytes; after the header: %q\n", f.Size(), rest)
	// Output:
	// 29 bytes; after the header: "record one\nrecord two\n"
}
