package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/storage"
)

// s3FileBytes is the size of the RecordIO file the s3 rows read.
func s3FileBytes(cfg config) int64 {
	switch {
	case cfg.tiny:
		return 1 << 20
	case cfg.long:
		return 256 << 20
	}
	return 64 << 20
}

// s3Rows measures a sequential RecordIO pass over an s3:// object served
// by an in-process S3 server (gofakes3 over HTTP on 127.0.0.1, as package
// storagetest starts it), against the same pass over the same file on
// local disk, run alternately: cold, every byte fetched from the server
// with storage's read-ahead; warm, through a storage.Cache that a first
// pass filled (each pass still asks the server for the object's ETag).
// "x plain" is the time over the local disk's.
func s3Rows(cfg config) ([]Row, error) {
	dir, err := os.MkdirTemp("", "tensorfeed-bench-s3-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "data.rec")
	records, payload, err := writeS3RecordIO(local, s3FileBytes(cfg))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(local)
	if err != nil {
		return nil, err
	}

	backend := s3mem.New()
	if err := backend.CreateBucket("bench"); err != nil {
		return nil, err
	}
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	if _, err := backend.PutObject("bench", "data.rec", meta, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		return nil, err
	}
	data = nil
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	const url = "s3://bench/data.rec"
	opts := []storage.Option{
		storage.Endpoint(srv.URL),
		storage.Credentials("bench", "bench-secret", ""),
		storage.Transport(transport),
	}
	cache, err := storage.NewCache(filepath.Join(dir, "cache"), 2*s3FileBytes(cfg))
	if err != nil {
		return nil, err
	}

	floor, err := measureFloor(cfg.cheapReps(), payload, 64<<10)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	read := func(path string, opts ...recordio.Option) func() error {
		r := recordio.Open(path, append(opts, recordio.ReuseBuffer())...)
		return func() error {
			var sum uint64
			n := 0
			for rec, err := range r.All(ctx) {
				if err != nil {
					return err
				}
				sum = consumeRecord(sum, rec.Data)
				n++
			}
			if n != records {
				return fmt.Errorf("read %d records of %s, want %d", n, path, records)
			}
			return nil
		}
	}
	// The warm reader's first pass (measureEach's untimed warm-up) fills
	// the cache; the cold one never uses it.
	rs, err := measureEach(cfg.cheapReps(),
		read(url, recordio.Storage(opts...)),
		read(url, recordio.Storage(append(opts, storage.WithCache(cache))...)),
		read(local))
	if err != nil {
		return nil, err
	}
	cold, warm, disk := rs[0], rs[1], rs[2]
	size := float64(payload) / 1e6
	rowCold := newRow("recordio-s3-cold", 1, records, payload, cold, disk, floor)
	rowCold.Note = fmt.Sprintf("RecordIO file of %.0f MB of payloads, sequential pass with ReuseBuffer from an in-process S3 server "+
		"(gofakes3, loopback HTTP, storage's default read-ahead); plain: the same file on local disk (page cache), alternately", size)
	rowWarm := newRow("recordio-s3-warm", 1, records, payload, warm, disk, floor)
	rowWarm.Note = fmt.Sprintf("RecordIO file of %.0f MB of payloads, sequential pass through storage.WithCache filled by a first pass "+
		"(one HEAD request a pass); plain: the same file on local disk (page cache), alternately", size)
	return []Row{rowCold, rowWarm}, nil
}

// writeS3RecordIO writes records of random bytes, of sizes spread
// between 16 KiB and 240 KiB as JPEG photos are, until the file holds
// about size bytes. It returns the number of records and their payload
// bytes.
func writeS3RecordIO(path string, size int64) (records int, payload int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := recordio.NewWriter(bw)
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 240<<10)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for w.Tell() < size {
		n := 16<<10 + rng.IntN(len(buf)-16<<10)
		start := rng.IntN(len(buf) - n + 1)
		if err := w.Write(buf[start : start+n]); err != nil {
			return 0, 0, err
		}
		records++
		payload += int64(n)
	}
	if err := bw.Flush(); err != nil {
		return 0, 0, err
	}
	return records, payload, f.Close()
}
