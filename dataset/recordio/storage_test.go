package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// samePayloads fails unless got holds the records of want, read from
// another file name: same payloads, offsets and indexes.
func samePayloads(t *testing.T, what string, got, want []recordio.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].Offset != want[i].Offset || got[i].Index != want[i].Index || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("%s: record %d at %d (%d bytes), want at %d (%d bytes)", what, got[i].Index, got[i].Offset, len(got[i].Data), want[i].Offset, len(want[i].Data))
		}
	}
}

// Every record of every fixture read from S3 equals the local read, with
// the default read-ahead and with small blocks that cut records and part
// headers.
func TestRemoteRecordsMatchLocal(t *testing.T) {
	ctx := context.Background()
	s3 := storagetest.NewS3(t, "data")
	for _, name := range allRecFiles {
		url := s3.PutFile("data", name+".rec", recPath(name))
		want, err := source.Collect(ctx, recordio.Open(recPath(name)))
		if err != nil {
			t.Fatal(err)
		}
		for _, ra := range []storage.Option{nil, storage.ReadAhead(3, 1001)} {
			r := recordio.Open(url, recordio.Storage(s3.Options(ra)...))
			got, err := source.Collect(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			samePayloads(t, url, got, want)
			if got[0].File != url {
				t.Errorf("File = %q, want %q", got[0].File, url)
			}
		}
	}
	r := recordio.Open(s3.PutFile("data", "m.rec", recPath("multipart_edge_cases")), recordio.Storage(s3.Options()...))
	if err := sourcetest.TestReader(r); err != nil {
		t.Error(err)
	}
}

// Shards of remote files, sized through storage, are the shards of the
// local files.
func TestRemoteShards(t *testing.T) {
	ctx := context.Background()
	s3 := storagetest.NewS3(t, "data")
	var local, remote []string
	for _, name := range allRecFiles {
		local = append(local, recPath(name))
		remote = append(remote, s3.PutFile("data", "shards/"+name+".rec", recPath(name)))
	}
	for i := range 3 {
		want, err := source.Collect(ctx, records(local, recordio.Shard(3, i)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := source.Collect(ctx, records(remote, recordio.Shard(3, i), recordio.Storage(s3.Options(storage.ReadAhead(2, 4096))...)))
		if err != nil {
			t.Fatal(err)
		}
		samePayloads(t, fmt.Sprint("shard ", i), got, want)
	}
	listed, err := storage.List(ctx, "s3://data/shards/*.rec", s3.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(remote) {
		t.Errorf("List found %v, want %d shards", listed, len(remote))
	}
}

// A remote .rec read by its remote .idx gives every record the local one
// does, by position and by key, and validates.
func TestRemoteIndexed(t *testing.T) {
	ctx := context.Background()
	s3 := storagetest.NewS3(t, "data")
	for _, name := range allRecFiles {
		rec := s3.PutFile("data", name+".rec", recPath(name))
		idx := s3.PutFile("data", name+".idx", idxPath(name))
		lf, err := recordio.OpenIndexed(context.Background(), recPath(name))
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		rf, err := recordio.OpenIndexed(ctx, rec, recordio.Storage(s3.Options()...))
		if err != nil {
			t.Fatal(err)
		}
		defer rf.Close()
		if rf.Len() != lf.Len() || rf.Len() == 0 {
			t.Fatalf("%s: %d entries, want %d", rec, rf.Len(), lf.Len())
		}
		if err := rf.Validate(); err != nil {
			t.Fatal(err)
		}
		for i := range rf.Len() {
			want, err := lf.Get(i)
			if err != nil {
				t.Fatal(err)
			}
			got, err := rf.Get(i)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: entry %d differs", rec, i)
			}
		}
		_, _, lkey := lf.Locate(lf.Len() - 1)
		if file, j, key := rf.Locate(rf.Len() - 1); file != rec || j != rf.Len()-1 || key != lkey {
			t.Fatalf("%s: Locate = %s, %d, %d; want key %d", rec, file, j, key, lkey)
		}
		ix, err := recordio.ReadIndex(context.Background(), idx, recordio.Storage(s3.Options()...))
		if err != nil {
			t.Fatal(err)
		}
		if ix.Len() != lf.Len() {
			t.Errorf("ReadIndex(%s): %d entries", idx, ix.Len())
		}
		got, err := source.Collect(ctx, source.ReadIndexed(rf))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != lf.Len() {
			t.Errorf("ReadIndexed: %d records, want %d", len(got), lf.Len())
		}
	}
}

// A missing object is an error naming its URL that wraps
// storage.ErrNotFound; a missing local file still matches fs.ErrNotExist.
func TestRemoteMissing(t *testing.T) {
	ctx := context.Background()
	s3 := storagetest.NewS3(t, "data")
	opt := recordio.Storage(s3.Options()...)
	rec := s3.PutFile("data", "only.rec", recPath("multipart_edge_cases"))
	const missing = "s3://data/missing.rec"
	errs := map[string]error{}
	_, errs["Open"] = source.Collect(ctx, recordio.Open(missing, opt))
	_, errs["Records sharded"] = source.Collect(ctx, records([]string{rec, missing}, recordio.Shard(2, 0), opt))
	_, errs["ReadIndex"] = recordio.ReadIndex(context.Background(), "s3://data/missing.idx", opt)
	_, errs["OpenIndexed"] = recordio.OpenIndexed(context.Background(), rec, opt) // only.idx is missing
	for what, err := range errs {
		var se *tensorfeed.Error
		if !errors.Is(err, storage.ErrNotFound) || !errors.As(err, &se) || !strings.HasPrefix(se.Path, "s3://data/missing") && se.Path != "s3://data/only.idx" {
			t.Errorf("%s: %v, want a *tensorfeed.Error naming the missing URL", what, err)
			continue
		}
		if !strings.Contains(err.Error(), se.Path) {
			t.Errorf("%s: %q does not name %s", what, err, se.Path)
		}
	}
	_, err := source.Collect(ctx, recordio.Open("testdata/no-such.rec"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "testdata/no-such.rec") {
		t.Errorf("missing local file: %v, want fs.ErrNotExist naming it", err)
	}
	if _, err := recordio.ReadIndex(context.Background(), "testdata/no-such.idx"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing local index: %v, want fs.ErrNotExist", err)
	}
}

// A server that answers 503 now and then is retried: the pass reads every
// record, and the failures were served.
func TestRemoteRetries5xx(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("data"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(recPath("mnist_t10k_1000_png_gray"))
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	if _, err := backend.PutObject("data", "g.rec", meta, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
	s3 := gofakes3.New(backend).Server()
	var requests, failed atomic.Int64
	var down atomic.Bool // every range GET fails
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Of the object's requests (the HEAD of Open, then range GETs), the
		// 1st, 2nd, 5th and 6th fail.
		if r.Method == http.MethodHead || r.Header.Get("Range") != "" {
			n := requests.Add(1)
			if n == 1 || n == 2 || n == 5 || n == 6 || down.Load() && r.Method == http.MethodGet {
				failed.Add(1)
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusServiceUnavailable)
				if r.Method != http.MethodHead {
					w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`))
				}
				return
			}
		}
		s3.ServeHTTP(w, r)
	}))
	transport := &http.Transport{}
	t.Cleanup(func() {
		srv.Close()
		transport.CloseIdleConnections()
	})
	opt := recordio.Storage(storage.Endpoint(srv.URL), storage.Credentials("test", "test-secret", ""),
		storage.Transport(transport), storage.Retry(6, time.Millisecond, 5*time.Millisecond), storage.ReadAhead(2, 16<<10))
	ctx := context.Background()
	got, err := source.Collect(ctx, recordio.Open("s3://data/g.rec", opt))
	if err != nil {
		t.Fatal(err)
	}
	want, err := source.Collect(ctx, recordio.Open(recPath("mnist_t10k_1000_png_gray")))
	if err != nil {
		t.Fatal(err)
	}
	samePayloads(t, "s3://data/g.rec", got, want)
	if failed.Load() != 4 {
		t.Errorf("%d requests failed, want 4", failed.Load())
	}

	// Once the attempts run out, the error names the URL and the range.
	down.Store(true)
	_, err = source.Collect(ctx, recordio.Open("s3://data/g.rec", opt))
	var se *tensorfeed.Error
	if !errors.Is(err, storage.ErrTransient) || !errors.As(err, &se) || se.Path != "s3://data/g.rec" || se.Offset < 0 ||
		!strings.Contains(err.Error(), fmt.Sprintf("bytes %d-", se.Offset)) {
		t.Errorf("a server that is down: %v, want a transient *tensorfeed.Error naming the URL and the range", err)
	}
}
