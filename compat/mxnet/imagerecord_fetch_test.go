package mxnet

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/storage"
)

// watchedS3 is an S3 server on 127.0.0.1 (gofakes3) whose range requests
// for .rec objects take a little time each and are counted: how many at
// once at most, and how many bytes they asked for.
type watchedS3 struct {
	backend   *s3mem.Backend
	opts      []storage.Option
	transport *http.Transport

	mu       sync.Mutex
	inFlight int
	most     int   // the most range requests in flight at once
	asked    int64 // bytes asked for by range requests
}

func newWatchedS3(t *testing.T, transport *http.Transport) *watchedS3 {
	t.Helper()
	w := &watchedS3{backend: s3mem.New(), transport: transport}
	if err := w.backend.CreateBucket("data"); err != nil {
		t.Fatal(err)
	}
	s3 := gofakes3.New(w.backend).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var from, to int64
		rng := r.Header.Get("Range")
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, ".rec") || rng == "" {
			s3.ServeHTTP(rw, r)
			return
		}
		if _, err := fmt.Sscanf(rng, "bytes=%d-%d", &from, &to); err != nil {
			t.Errorf("range %q: %v", rng, err)
		}
		w.mu.Lock()
		w.inFlight++
		w.most = max(w.most, w.inFlight)
		w.asked += to - from + 1
		w.mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		s3.ServeHTTP(rw, r)
		w.mu.Lock()
		w.inFlight--
		w.mu.Unlock()
	}))
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		srv.Close()
	})
	w.opts = []storage.Option{storage.Endpoint(srv.URL), storage.Credentials("test", "test-secret", ""), storage.Transport(transport)}
	return w
}

// put stores b as s3://data/key and returns that URL.
func (w *watchedS3) put(t *testing.T, key string, b []byte) string {
	t.Helper()
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	if _, err := w.backend.PutObject("data", key, meta, bytes.NewReader(b), int64(len(b)), nil); err != nil {
		t.Fatal(err)
	}
	return "s3://data/" + key
}

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A pass shuffled through the .idx of a remote .rec keeps several range
// requests in flight, never more than its bound, and asks for the bytes of
// its part's records only: the index is not checked by a read of the whole
// object first. Its batches are the local pass's.
func TestRemoteIndexedReadAhead(t *testing.T) {
	w := newWatchedS3(t, &http.Transport{MaxIdleConnsPerHost: aheadRecords})
	recBytes := readTestFile(t, tdPath(mnistJPG, ".rec"))
	rec := w.put(t, "d.rec", recBytes)
	idx := w.put(t, "d.idx", readTestFile(t, tdPath(mnistJPG, ".idx")))
	opts := []recOpt{oDataShape(3, 28, 28), oBatch(50), oShuffle(5), oShard(4, 1), oThreads(2)}
	want := passOf(t, tdPath(mnistJPG, ".rec"), append(opts, oIndex(tdPath(mnistJPG, ".idx")))...)
	got := passOf(t, rec, append(opts, oIndex(idx), oStorage(w.opts...))...)
	if !sameBatches(got, want) {
		t.Error("batches differ from the local ones")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.most < 2 || w.most > aheadRecords+2 {
		t.Errorf("at most %d range requests in flight at once, want 2 to %d", w.most, aheadRecords+2)
	}
	// A quarter of the records, and nothing else.
	if limit := int64(len(recBytes))/4 + int64(len(recBytes))/20; w.asked > limit {
		t.Errorf("the pass asked for %d bytes of a %d-byte .rec for a quarter of its records, want at most %d", w.asked, len(recBytes), limit)
	}
}

// A remote .idx that does not match its .rec is an error wrapping
// recordio.ErrFormat that names the .rec object, the offset at fault and
// the .idx: what can be told without reading the .rec (an offset past its
// end) before the first batch; an entry left out when the record before it
// is read, mid-pass, before any record after the gap is lost.
func TestRemoteIndexMismatch(t *testing.T) {
	w := newWatchedS3(t, &http.Transport{DisableKeepAlives: true})
	recBytes := readTestFile(t, tdPath(mnistJPG, ".rec"))
	lines := strings.SplitAfter(string(readTestFile(t, tdPath(mnistJPG, ".idx"))), "\n")
	ix, err := recordio.ReadIndex(t.Context(), tdPath(mnistJPG, ".idx"))
	if err != nil {
		t.Fatal(err)
	}
	gap := append(append([]string(nil), lines[:7]...), lines[8:]...)
	cases := []struct {
		name     string
		rec      []byte
		idx      string
		at       int64 // the offset the error names
		msg      string
		firstBad bool // the error comes before the first batch
	}{
		{"rec truncated", recBytes[:ix.Entry(500).Offset], strings.Join(lines, ""), ix.Entry(500).Offset, "at or past the end of the file", true},
		{"an entry left out", recBytes, strings.Join(gap, ""), ix.Entry(7).Offset, "bytes between are not indexed", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := w.put(t, "m.rec", c.rec)
			idx := w.put(t, "m.idx", []byte(c.idx))
			it, err := newRec(rec, oDataShape(3, 28, 28), oBatch(10), oShuffle(2), oIndex(idx), oStorage(w.opts...))
			if err != nil {
				t.Fatal(err)
			}
			batches := 0
			for _, e := range it.All(t.Context()) {
				if e != nil {
					err = e
					break
				}
				batches++
			}
			var pe *tensorfeed.Error
			if !errors.Is(err, recordio.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &pe) {
				t.Fatalf("after %d batches: %v; want an index error", batches, err)
			}
			if pe.Path != rec || pe.Offset != c.at || !strings.Contains(err.Error(), idx) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q: want it at offset %d of %s, naming %s and saying %q", err, c.at, rec, idx, c.msg)
			}
			if c.firstBad != (batches == 0) || batches > 100 {
				t.Errorf("the error came after %d batches", batches)
			}
		})
	}
}

// A pass through the index of a remote .rec stopped after its first batch
// cancels the requests it had in flight and leaves no goroutine behind.
func TestRemoteIndexedStopEarly(t *testing.T) {
	transport := &http.Transport{DisableKeepAlives: true}
	w := newWatchedS3(t, transport)
	rec := w.put(t, "s.rec", readTestFile(t, tdPath(mnistJPG, ".rec")))
	idx := w.put(t, "s.idx", readTestFile(t, tdPath(mnistJPG, ".idx")))
	opts := []recOpt{oDataShape(3, 28, 28), oBatch(20), oShuffle(3), oIndex(idx), oStorage(w.opts...), oThreads(2)}
	it, err := newRec(rec, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ignore := goleak.IgnoreCurrent()
	for range 3 {
		for b, err := range it.All(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
			b.Release()
			break
		}
		transport.CloseIdleConnections()
		if err := goleak.Find(ignore); err != nil {
			t.Fatal(err)
		}
	}
}
