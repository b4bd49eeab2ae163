package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/storage"
)

const bucket = "data"

// readTests are the read tests run against gofakes3 and, when present,
// MinIO: open, ranges, read-ahead, listing, a missing object, a replaced
// object.
func readTests(t *testing.T, put func(t testing.TB, key string, data []byte), opts func(...storage.Option) []storage.Option) {
	ctx := context.Background()
	data := randomBytes(300_000, 1)
	put(t, "obj.bin", data)
	url := "s3://" + bucket + "/obj.bin"

	t.Run("ReadAt", func(t *testing.T) {
		o := mustOpen(t, url, opts()...)
		if o.Size() != int64(len(data)) || o.Name() != url || o.ETag() == "" {
			t.Fatalf("Size %d Name %q ETag %q", o.Size(), o.Name(), o.ETag())
		}
		for _, r := range []struct{ off, n int }{{0, 1}, {0, 1000}, {12345, 54321}, {299_999, 1}, {100_000, 200_000}} {
			p := make([]byte, r.n)
			n, err := o.ReadAt(p, int64(r.off))
			if err != nil || n != r.n || !bytes.Equal(p, data[r.off:r.off+r.n]) {
				t.Fatalf("ReadAt(%d, %d) = %d, %v (bytes equal %v)", r.n, r.off, n, err, bytes.Equal(p[:n], data[r.off:r.off+n]))
			}
		}
		// A range that passes the end: the bytes present and io.EOF.
		p := make([]byte, 100)
		n, err := o.ReadAt(p, int64(len(data)-40))
		if n != 40 || err != io.EOF || !bytes.Equal(p[:40], data[len(data)-40:]) {
			t.Fatalf("ReadAt past the end = %d, %v", n, err)
		}
		// A range that starts past the end: ErrRange naming the URL and range.
		_, err = o.ReadAt(p, int64(len(data)+10))
		if !errors.Is(err, storage.ErrRange) {
			t.Fatalf("err = %v, want ErrRange", err)
		}
		wantContains(t, err, url, "bytes 300010-300109")
	})

	t.Run("Reader", func(t *testing.T) {
		o := mustOpen(t, url, opts(storage.ReadAhead(3, 7000))...)
		r := o
		got, err := io.ReadAll(r)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read %d bytes, err %v, equal %v", len(got), err, bytes.Equal(got, data))
		}
	})

	t.Run("ReaderStoppedEarly", func(t *testing.T) {
		o := mustOpen(t, url, opts(storage.ReadAhead(4, 1000))...)
		r := o
		p := make([]byte, 2500)
		if _, err := io.ReadFull(r, p); err != nil || !bytes.Equal(p, data[:2500]) {
			t.Fatal(err)
		}
		r.Close() // joins the read-ahead (goleak checks)
		if _, err := r.Read(p); err == nil {
			t.Fatal("Read after Close succeeded")
		}
	})

	t.Run("List", func(t *testing.T) {
		for _, k := range []string{"train-002.rec", "train-000.rec", "train-001.rec", "train-000.idx", "val-000.rec", "sub/train-009.rec"} {
			put(t, k, []byte(k))
		}
		got, err := storage.List(ctx, "s3://"+bucket+"/train-*.rec", opts()...)
		want := []string{"s3://data/train-000.rec", "s3://data/train-001.rec", "s3://data/train-002.rec"}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("List = %q, %v; want %q", got, err, want)
		}
		got, err = storage.List(ctx, "s3://"+bucket+"/train-", opts()...)
		want = []string{"s3://data/train-000.idx", "s3://data/train-000.rec", "s3://data/train-001.rec", "s3://data/train-002.rec"}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("List prefix = %q, %v; want %q", got, err, want)
		}
		got, err = storage.List(ctx, "s3://"+bucket+"/none-*", opts()...)
		if err != nil || len(got) != 0 {
			t.Fatalf("List of nothing = %q, %v", got, err)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		_, err := storage.OpenFile(ctx, "s3://"+bucket+"/missing", opts()...)
		if !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
		wantContains(t, err, "s3://data/missing")
	})

	t.Run("Replaced", func(t *testing.T) {
		put(t, "replaced.bin", []byte("first version"))
		name := "s3://" + bucket + "/replaced.bin"
		first := mustOpen(t, name, opts()...)
		put(t, "replaced.bin", []byte("second version!"))
		second := mustOpen(t, name, opts()...)
		if first.ETag() == second.ETag() {
			t.Fatalf("same ETag %q for two versions", first.ETag())
		}
		_, err := first.ReadAt(make([]byte, 5), 0)
		if !errors.Is(err, storage.ErrChanged) {
			t.Fatalf("err = %v, want ErrChanged", err)
		}
		wantContains(t, err, name, "bytes 0-4")
		p := make([]byte, 15)
		if _, err := second.ReadAt(p, 0); err != nil || string(p) != "second version!" {
			t.Fatalf("second open reads %q, %v", p, err)
		}
	})
}

func TestS3(t *testing.T) {
	f := newFakeS3(t, bucket)
	readTests(t, func(t testing.TB, key string, data []byte) { f.put(t, bucket, key, data) }, f.opts)
}

func TestS3ReadAheadBounded(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(100_000, 2)
	f.put(t, bucket, "o", data)
	o := mustOpen(t, "s3://data/o", f.opts(storage.ReadAhead(3, 1000))...)
	r := o
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatal(err)
	}
	if m := f.maxGets.Load(); m > 3 {
		t.Errorf("%d range requests at once, want at most 3", m)
	}
	// Each block asked for once, in read order except for the overlap of
	// the requests in flight.
	ranges := f.rangesSeen()
	if len(ranges) != 100 {
		t.Fatalf("%d range requests, want 100", len(ranges))
	}
	for i, r := range ranges {
		lo := max(0, i-2)
		hi := min(99, i+2)
		found := false
		for b := lo; b <= hi; b++ {
			found = found || r == fmt.Sprintf("bytes=%d-%d", b*1000, b*1000+999)
		}
		if !found {
			t.Errorf("request %d asked for %s, more than the read-ahead away from block %d", i, r, i)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ranges)))) != 100 {
		t.Errorf("a block was asked for twice: %q", ranges)
	}
}

func TestS3RetryOn5xx(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(5000, 3)
	f.put(t, bucket, "o", data)
	o := mustOpen(t, "s3://data/o", f.opts()...)
	f.setFaults(2, 0, false)
	p := make([]byte, 1000)
	if _, err := o.ReadAt(p, 100); err != nil || !bytes.Equal(p, data[100:1100]) {
		t.Fatal(err)
	}
	if n := f.gets.Load(); n != 3 {
		t.Errorf("%d GETs, want 3 (two 503s, then the answer)", n)
	}
}

func TestS3RetryOnReset(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(50_000, 4)
	f.put(t, bucket, "o", data)
	o := mustOpen(t, "s3://data/o", f.opts(storage.ReadAhead(2, 4096))...)
	f.setFaults(0, 3, false)
	r := o
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatal(err)
	}
}

func TestS3RetriesBounded(t *testing.T) {
	f := newFakeS3(t, bucket)
	f.put(t, bucket, "o", randomBytes(5000, 5))
	o := mustOpen(t, "s3://data/o", f.opts(storage.Retry(3, time.Millisecond, 2*time.Millisecond))...)
	f.setFaults(1000, 0, false)
	_, err := o.ReadAt(make([]byte, 10), 20)
	if !errors.Is(err, storage.ErrTransient) {
		t.Fatalf("err = %v, want ErrTransient", err)
	}
	wantContains(t, err, "s3://data/o", "bytes 20-29", "3 attempts", "503")
	if want := "s3://data/o: byte 20: storage: read bytes 20-29: storage: transient failure: 3 attempts: " +
		"HTTP 503 Service Unavailable: SlowDown: Please reduce your request rate."; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if n := f.gets.Load(); n != 3 {
		t.Errorf("%d GETs, want 3", n)
	}
}

func TestS3DeniedNotRetried(t *testing.T) {
	f := newFakeS3(t, bucket)
	f.put(t, bucket, "o", []byte("secret"))
	f.setFaults(0, 0, true)
	_, err := storage.OpenFile(context.Background(), "s3://data/o", f.opts()...)
	if !errors.Is(err, storage.ErrDenied) {
		t.Fatalf("err = %v, want ErrDenied", err)
	}
	wantContains(t, err, "s3://data/o", "403")
	if n := f.requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestS3ServerRestartedMidRead(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(1<<20, 6)
	f.put(t, bucket, "o", data)
	o := mustOpen(t, "s3://data/o", f.opts(storage.ReadAhead(2, 64<<10), storage.Retry(30, 5*time.Millisecond, 50*time.Millisecond))...)
	r := o
	defer r.Close()
	got := make([]byte, 200_000)
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatal(err)
	}
	f.stop()
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		time.Sleep(100 * time.Millisecond)
		f.start()
	}()
	rest, err := io.ReadAll(r)
	<-restarted
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, rest...), data) {
		t.Fatal("bytes differ after the restart")
	}
}
