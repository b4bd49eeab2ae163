package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/storage"
)

// versionServer serves one object, /obj, with Range support
// (http.ServeContent), and lets a test replace its content, its ETag and
// its Last-Modified, or answer range requests badly. It records the
// conditional headers of every range request after the open's.
type versionServer struct {
	*httptest.Server
	transport *http.Transport

	mu       sync.Mutex
	data     []byte
	etag     string    // "" sends no ETag
	modified time.Time // the zero time sends no Last-Modified
	bad      func(w http.ResponseWriter, data []byte, first, last int64)
	ifMatch  []string // If-Match of every range request but the open's
	ifUnmod  []string // If-Unmodified-Since of the same requests
	reads    atomic.Int64
}

func newVersionServer(t *testing.T, data []byte, etag string, modified time.Time) *versionServer {
	t.Helper()
	s := &versionServer{data: data, etag: etag, modified: modified, transport: &http.Transport{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.Close()
		s.transport.CloseIdleConnections()
	})
	return s
}

func (s *versionServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, etag, modified, bad := s.data, s.etag, s.modified, s.bad
	rg := r.Header.Get("Range")
	open := rg == "bytes=0-0"
	if !open {
		s.ifMatch = append(s.ifMatch, r.Header.Get("If-Match"))
		s.ifUnmod = append(s.ifUnmod, r.Header.Get("If-Unmodified-Since"))
	}
	s.mu.Unlock()
	if !open {
		s.reads.Add(1)
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if bad != nil && !open {
		a, b, _ := strings.Cut(strings.TrimPrefix(rg, "bytes="), "-")
		first, _ := strconv.ParseInt(a, 10, 64)
		last, _ := strconv.ParseInt(b, 10, 64)
		if !modified.IsZero() {
			w.Header().Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
		}
		bad(w, data, first, last)
		return
	}
	http.ServeContent(w, r, "", modified, bytes.NewReader(data))
}

// set replaces the object.
func (s *versionServer) set(data []byte, etag string, modified time.Time) {
	s.mu.Lock()
	s.data, s.etag, s.modified = data, etag, modified
	s.mu.Unlock()
}

func (s *versionServer) answerBadly(f func(w http.ResponseWriter, data []byte, first, last int64)) {
	s.mu.Lock()
	s.bad = f
	s.mu.Unlock()
}

func (s *versionServer) conditions() (ifMatch, ifUnmodifiedSince []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ifMatch...), append([]string(nil), s.ifUnmod...)
}

func (s *versionServer) opts(more ...storage.Option) []storage.Option {
	return append([]storage.Option{storage.Transport(s.transport), storage.Retry(3, time.Millisecond, 2*time.Millisecond)}, more...)
}

func (s *versionServer) url() string { return s.URL + "/obj" }

// A server that sends neither ETag nor Last-Modified cannot tell two
// versions of an object apart, so a read by several requests is refused
// unless AllowUnvalidated says otherwise; one request for the whole object
// is still allowed.
func TestHTTPWithoutValidators(t *testing.T) {
	data := randomBytes(50_000, 21)
	s := newVersionServer(t, data, "", time.Time{})
	url := s.url()
	o := mustOpen(t, url, s.opts()...)

	p := make([]byte, 1000)
	_, err := o.ReadAt(p, 2000)
	if !errors.Is(err, storage.ErrUnvalidated) {
		t.Fatalf("ReadAt of a part: err = %v, want ErrUnvalidated", err)
	}
	wantContains(t, err, url, "bytes 2000-2999", "neither ETag nor Last-Modified", "storage.AllowUnvalidated")

	// The sequential reader in blocks smaller than the object: refused too.
	small := mustOpen(t, url, s.opts(storage.ReadAhead(2, 10_000))...)
	r := small
	_, err = io.ReadAll(r)
	r.Close()
	if !errors.Is(err, storage.ErrUnvalidated) {
		t.Fatalf("Reader in blocks: err = %v, want ErrUnvalidated", err)
	}

	// The whole object in one request is one version.
	whole := make([]byte, len(data))
	if _, err := o.ReadAt(whole, 0); err != nil || !bytes.Equal(whole, data) {
		t.Fatalf("ReadAt of the whole object: %v", err)
	}
	r = o // one block of 8 MiB
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Reader in one block: %v", err)
	}

	// Accepted explicitly: reads work, with one warning per object.
	core, logs := observer.New(zap.WarnLevel)
	ctx := tensorfeed.WithLogger(context.Background(), zap.New(core))
	risky := mustOpenCtx(t, ctx, url, s.opts(storage.AllowUnvalidated(), storage.ReadAhead(2, 10_000))...)
	for range 3 {
		if _, err := risky.ReadAt(p, 2000); err != nil || !bytes.Equal(p, data[2000:3000]) {
			t.Fatalf("ReadAt with AllowUnvalidated: %v", err)
		}
	}
	r = risky
	got, err = io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Reader with AllowUnvalidated: %v", err)
	}
	if logs.Len() != 1 {
		t.Fatalf("%d warnings, want 1: %v", logs.Len(), logs.All())
	}
	e := logs.All()[0]
	if !strings.Contains(e.Message, "neither ETag nor Last-Modified") || e.ContextMap()["url"] != url {
		t.Errorf("warning %q %v", e.Message, e.ContextMap())
	}
}

// A server that keeps Last-Modified while the object changes: the size in
// every Content-Range is checked against the size at open, and every read
// is conditional on the Last-Modified seen at open.
func TestHTTPChangedKeepingLastModified(t *testing.T) {
	modified := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v1 := randomBytes(40_000, 22)
	s := newVersionServer(t, v1, "", modified)
	url := s.url()
	o := mustOpen(t, url, s.opts()...)
	p := make([]byte, 500)
	if _, err := o.ReadAt(p, 100); err != nil || !bytes.Equal(p, v1[100:600]) {
		t.Fatal(err)
	}
	if _, unmod := s.conditions(); len(unmod) != 1 || unmod[0] != modified.Format(http.TimeFormat) {
		t.Fatalf("If-Unmodified-Since of the read = %q, want %q", unmod, modified.Format(http.TimeFormat))
	}

	// Rewritten within the same second: a longer object, the same date.
	s.set(append(randomBytes(40_000, 23), 1, 2, 3), "", modified)
	reads := s.reads.Load()
	_, err := o.ReadAt(p, 100)
	if !errors.Is(err, storage.ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	wantContains(t, err, url, "bytes 100-599", "object changed while being read: size 40000 at open, 40003 now")
	if n := s.reads.Load() - reads; n != 1 {
		t.Errorf("%d requests for a changed object, want 1 (never retried)", n)
	}

	// Rewritten later: the server answers the condition with 412.
	s.set(v1, "", modified.Add(time.Minute))
	reads = s.reads.Load()
	_, err = o.ReadAt(p, 100)
	if !errors.Is(err, storage.ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	wantContains(t, err, url, "bytes 100-599", "412", "If-Unmodified-Since "+modified.Format(http.TimeFormat))
	if n := s.reads.Load() - reads; n != 1 {
		t.Errorf("%d requests after a 412, want 1 (never retried)", n)
	}
}

// Every read of an object with an ETag carries If-Match; a weak ETag,
// which If-Match never matches, is compared on every answer instead.
func TestHTTPConditionalReads(t *testing.T) {
	data := randomBytes(30_000, 24)
	for _, etag := range []string{`"v1"`, `W/"v1"`} {
		t.Run(etag, func(t *testing.T) {
			s := newVersionServer(t, data, etag, time.Time{})
			o := mustOpen(t, s.url(), s.opts()...)
			p := make([]byte, 100)
			if _, err := o.ReadAt(p, 7); err != nil || !bytes.Equal(p, data[7:107]) {
				t.Fatal(err)
			}
			want := etag
			if strings.HasPrefix(etag, "W/") {
				want = ""
			}
			if im, _ := s.conditions(); len(im) != 1 || im[0] != want {
				t.Fatalf("If-Match = %q, want %q", im, want)
			}
			s.set(data, `"v2"`, time.Time{})
			_, err := o.ReadAt(p, 7)
			if !errors.Is(err, storage.ErrChanged) {
				t.Fatalf("err = %v, want ErrChanged", err)
			}
			wantContains(t, err, s.url(), "bytes 7-106")
		})
	}
}

// Answers to range requests that do not match the request are errors that
// name the URL and the range; a body cut short is retried, a bounded number
// of times.
func TestHTTPBadRangeAnswers(t *testing.T) {
	data := randomBytes(20_000, 25)
	partial := func(w http.ResponseWriter, first, last, total int64, body []byte) {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, total))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(body)
	}
	size := int64(len(data))
	for _, c := range []struct {
		name     string
		answer   func(w http.ResponseWriter, data []byte, first, last int64)
		sentinel error
		msg      string
		requests int64 // for the read
	}{
		{"another total", func(w http.ResponseWriter, data []byte, first, last int64) {
			partial(w, first, last, size+7, data[first:last+1])
		}, storage.ErrChanged, "size 20000 at open, 20007 now", 1},
		{"another range", func(w http.ResponseWriter, data []byte, first, last int64) {
			partial(w, first+1, last+1, size, data[first+1:last+2])
		}, storage.ErrBadResponse, `asked for bytes 1000-5999, got Content-Range "bytes 1001-6000/20000"`, 1},
		{"a shorter range", func(w http.ResponseWriter, data []byte, first, last int64) {
			partial(w, first, last-10, size, data[first:last+1])
		}, storage.ErrBadResponse, `asked for bytes 1000-5999, got Content-Range "bytes 1000-5989/20000"`, 1},
		{"a longer body", func(w http.ResponseWriter, data []byte, first, last int64) {
			partial(w, first, last, size, data[first:last+11])
		}, storage.ErrBadResponse, "a body of 5010 bytes for a range of 5000", 1},
		{"a longer chunked body", func(w http.ResponseWriter, data []byte, first, last int64) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, size))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[first : last+1])
			w.(http.Flusher).Flush()
			w.Write(data[last+1 : last+11])
		}, storage.ErrBadResponse, "a body longer than the range of 5000 bytes", 1},
		{"a body cut short", func(w http.ResponseWriter, data []byte, first, last int64) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, size))
			w.Header().Set("Content-Length", strconv.FormatInt(last-first+1, 10))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[first : first+100])
		}, storage.ErrTransient, "3 attempts", 3},
		{"the whole object, of another size", func(w http.ResponseWriter, data []byte, first, last int64) {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)+10))
			w.Write(append(data[:len(data):len(data)], make([]byte, 10)...)) // 200: Range ignored
		}, storage.ErrChanged, "size 20000 at open, 20010 now", 1},
		{"no Content-Range", func(w http.ResponseWriter, data []byte, first, last int64) {
			w.Header().Set("Content-Length", strconv.FormatInt(last-first+1, 10))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[first : last+1])
		}, storage.ErrBadResponse, `bad Content-Range ""`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newVersionServer(t, data, `"v1"`, time.Time{})
			o := mustOpen(t, s.url(), s.opts()...)
			s.answerBadly(c.answer)
			p := make([]byte, 5000)
			_, err := o.ReadAt(p, 1000)
			if !errors.Is(err, c.sentinel) {
				t.Fatalf("err = %v, want %v", err, c.sentinel)
			}
			wantContains(t, err, s.url(), "bytes 1000-5999", c.msg)
			if n := s.reads.Load(); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
		})
	}

	// A server that ignores Range: the range is cut from the whole object.
	s := newVersionServer(t, data, `"v1"`, time.Time{})
	o := mustOpen(t, s.url(), s.opts()...)
	s.answerBadly(func(w http.ResponseWriter, data []byte, first, last int64) { w.Write(data) })
	p := make([]byte, 5000)
	if _, err := o.ReadAt(p, 1000); err != nil || !bytes.Equal(p, data[1000:6000]) {
		t.Fatalf("from a server that ignores Range: %v", err)
	}

	// A body cut short once: the retry asks for the rest, and the bytes are
	// the object's.
	s = newVersionServer(t, data, `"v1"`, time.Time{})
	o = mustOpen(t, s.url(), s.opts()...)
	var cut atomic.Bool
	s.answerBadly(func(w http.ResponseWriter, data []byte, first, last int64) {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, size))
		w.Header().Set("Content-Length", strconv.FormatInt(last-first+1, 10))
		w.WriteHeader(http.StatusPartialContent)
		if cut.CompareAndSwap(false, true) {
			w.Write(data[first : first+100])
			return
		}
		w.Write(data[first : last+1])
	})
	clear(p)
	if _, err := o.ReadAt(p, 1000); err != nil || !bytes.Equal(p, data[1000:6000]) {
		t.Fatalf("after a body cut short once: %v", err)
	}
	if n := s.reads.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// Without validators, a whole-object read whose body is cut short starts
// again from byte 0 instead of joining two answers.
func TestHTTPWithoutValidatorsRetriesWhole(t *testing.T) {
	data := randomBytes(20_000, 26)
	s := newVersionServer(t, data, "", time.Time{})
	o := mustOpen(t, s.url(), s.opts()...)
	var ranges []string
	var mu sync.Mutex
	var cut atomic.Bool
	s.answerBadly(func(w http.ResponseWriter, data []byte, first, last int64) {
		mu.Lock()
		ranges = append(ranges, fmt.Sprintf("%d-%d", first, last))
		mu.Unlock()
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(data)))
		w.Header().Set("Content-Length", strconv.FormatInt(last-first+1, 10))
		w.WriteHeader(http.StatusPartialContent)
		if cut.CompareAndSwap(false, true) {
			w.Write(data[first : first+100])
			return
		}
		w.Write(data[first : last+1])
	})
	whole := make([]byte, len(data))
	if _, err := o.ReadAt(whole, 0); err != nil || !bytes.Equal(whole, data) {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"0-19999", "0-19999"}; fmt.Sprint(ranges) != fmt.Sprint(want) {
		t.Fatalf("ranges %q, want %q", ranges, want)
	}
}

// rewriteHeader lets a handler's answer go out with its Content-Range
// changed.
type rewriteHeader struct {
	http.ResponseWriter
	contentRange func(string) string
}

func (w rewriteHeader) WriteHeader(code int) {
	if cr := w.Header().Get("Content-Range"); cr != "" {
		w.Header().Set("Content-Range", w.contentRange(cr))
	}
	w.ResponseWriter.WriteHeader(code)
}

// S3 answers are checked as HTTP ones are: a Content-Range of another
// total or another range is an error naming the URL and the range.
func TestS3BadRangeAnswers(t *testing.T) {
	f := newFakeS3(t, bucket)
	data := randomBytes(30_000, 27)
	f.put(t, bucket, "obj", data)
	var rewrite atomic.Pointer[func(string) string]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fn := rewrite.Load(); fn != nil && r.Header.Get("Range") != "" {
			w = rewriteHeader{w, *fn}
		}
		f.handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	opts := f.opts(storage.Endpoint(srv.URL))
	o := mustOpen(t, "s3://data/obj", opts...)
	p := make([]byte, 1000)
	if _, err := o.ReadAt(p, 500); err != nil || !bytes.Equal(p, data[500:1500]) {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		rewrite  func(string) string
		sentinel error
		msg      string
	}{
		{"another total", func(cr string) string { return strings.Replace(cr, "/30000", "/30001", 1) },
			storage.ErrChanged, "size 30000 at open, 30001 now"},
		{"another range", func(string) string { return "bytes 501-1500/30000" },
			storage.ErrBadResponse, `asked for bytes 500-1499, got Content-Range "bytes 501-1500/30000"`},
	} {
		rewrite.Store(&c.rewrite)
		_, err := o.ReadAt(p, 500)
		if !errors.Is(err, c.sentinel) {
			t.Fatalf("%s: err = %v, want %v", c.name, err, c.sentinel)
		}
		wantContains(t, err, "s3://data/obj", "bytes 500-1499", c.msg)
	}
}
