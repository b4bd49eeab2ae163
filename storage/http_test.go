package storage_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/storage"
)

// httpServer serves content with Range support (http.ServeContent) and an
// ETag; fail5xx requests are answered 503 first.
type httpServer struct {
	*httptest.Server
	content  atomic.Pointer[[]byte]
	etag     atomic.Pointer[string]
	fail5xx  atomic.Int64
	hang     atomic.Int64 // requests that get no answer until the client gives up
	requests atomic.Int64
}

func newHTTPServer(t *testing.T, data []byte) *httpServer {
	s := &httpServer{}
	s.set(data, `"v1"`)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if r.URL.Path != "/file.bin" {
			http.NotFound(w, r)
			return
		}
		if s.hang.Add(-1) >= 0 {
			<-r.Context().Done()
			return
		}
		if s.fail5xx.Add(-1) >= 0 {
			http.Error(w, "overloaded", http.StatusBadGateway)
			return
		}
		w.Header().Set("ETag", *s.etag.Load())
		http.ServeContent(w, r, "file.bin", time.Time{}, bytes.NewReader(*s.content.Load()))
	}))
	tr := &http.Transport{}
	t.Cleanup(func() {
		s.Close()
		tr.CloseIdleConnections()
	})
	s.Server.Client().Transport = tr
	return s
}

func (s *httpServer) set(data []byte, etag string) {
	s.content.Store(&data)
	s.etag.Store(&etag)
}

func (s *httpServer) opts() []storage.Option {
	return []storage.Option{storage.Transport(s.Server.Client().Transport), storage.Retry(4, time.Millisecond, 5*time.Millisecond)}
}

func TestHTTP(t *testing.T) {
	data := randomBytes(100_000, 9)
	s := newHTTPServer(t, data)
	url := s.URL + "/file.bin"
	o := mustOpen(t, url, s.opts()...)
	if o.Size() != int64(len(data)) || o.ETag() != `"v1"` || o.Name() != url {
		t.Fatalf("Size %d ETag %q Name %q", o.Size(), o.ETag(), o.Name())
	}
	p := make([]byte, 777)
	if _, err := o.ReadAt(p, 4242); err != nil || !bytes.Equal(p, data[4242:4242+777]) {
		t.Fatal(err)
	}
	o2 := mustOpen(t, url, append(s.opts(), storage.ReadAhead(3, 999))...)
	if got := readAll(t, o2); !bytes.Equal(got, data) {
		t.Fatal("sequential read differs")
	}
	if _, err := o.ReadAt(p, 200_000); !errors.Is(err, storage.ErrRange) {
		t.Fatalf("err = %v, want ErrRange", err)
	}

	s.fail5xx.Store(2)
	if _, err := o.ReadAt(p, 0); err != nil || !bytes.Equal(p, data[:777]) {
		t.Fatalf("after two 502s: %v", err)
	}

	// A request without an answer times out and is retried.
	s.hang.Store(1)
	slow := mustOpen(t, url, append(s.opts(), storage.RequestTimeout(50*time.Millisecond))...)
	s.hang.Store(1)
	if _, err := slow.ReadAt(p, 1); err != nil || !bytes.Equal(p, data[1:778]) {
		t.Fatalf("after a request without an answer: %v", err)
	}
	s.hang.Store(100)
	_, err := slow.ReadAt(p, 1)
	if !errors.Is(err, storage.ErrTransient) {
		t.Fatalf("err = %v, want ErrTransient", err)
	}
	wantContains(t, err, url, "bytes 1-777", "no answer within 50ms")
	s.hang.Store(0)

	_, err = storage.OpenFile(context.Background(), s.URL+"/missing", s.opts()...)
	if !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	wantContains(t, err, s.URL+"/missing", "404")

	s.set(randomBytes(100_000, 10), `"v2"`)
	_, err = o.ReadAt(p, 10)
	if !errors.Is(err, storage.ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	wantContains(t, err, url, "bytes 10-786", `"v1"`)
}

func TestLocal(t *testing.T) {
	dir := t.TempDir()
	data := randomBytes(50_000, 11)
	for _, n := range []string{"train-1.rec", "train-0.rec", "val-0.rec"} {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(dir, "train-0.rec")
	o := mustOpen(t, name, storage.WithCache(newCache(t, t.TempDir(), 10))) // never cached
	if o.Size() != int64(len(data)) || o.Name() != name || o.ETag() == "" {
		t.Fatalf("Size %d Name %q ETag %q", o.Size(), o.Name(), o.ETag())
	}
	if got := readAll(t, o); !bytes.Equal(got, data) {
		t.Fatal("read differs")
	}
	p := make([]byte, 10)
	if n, err := o.ReadAt(p, int64(len(data)-3)); n != 3 || err != io.EOF {
		t.Fatalf("ReadAt at the end = %d, %v", n, err)
	}
	got, err := storage.List(context.Background(), filepath.Join(dir, "train-*.rec"))
	want := []string{filepath.Join(dir, "train-0.rec"), filepath.Join(dir, "train-1.rec")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("List = %q, %v", got, err)
	}
	_, err = storage.OpenFile(context.Background(), filepath.Join(dir, "none"))
	if !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	_, err = storage.OpenFile(context.Background(), "ftp://host/x")
	wantContains(t, err, "ftp://host/x", "unknown scheme")
}

// An error is a *tensorfeed.Error: Path is the object, Offset the first
// byte of the range a read asked for; its text says the operation and the
// range, and errors.Is finds the sentinel.
func TestErrorNamesURLAndRange(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "ten.bin")
	if err := os.WriteFile(name, make([]byte, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	o := mustOpen(t, name)
	_, err := o.ReadAt(make([]byte, 50), 100)
	var te *tensorfeed.Error
	if !errors.As(err, &te) || te.Path != name || te.Offset != 100 || te.Record != -1 || !errors.Is(err, storage.ErrRange) {
		t.Fatalf("ReadAt past the end: %v (%#v), want a *tensorfeed.Error at byte 100 of %s wrapping ErrRange", err, te, name)
	}
	if got, want := err.Error(), name+": byte 100: storage: read bytes 100-149: storage: range past the end of the object (size 10)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if _, err := o.ReadAt(nil, 11); err == nil || !strings.HasSuffix(err.Error(), ": byte 11: storage: read 0 bytes at 11: storage: range past the end of the object (size 10)") {
		t.Errorf("an empty read past the end: %v", err)
	}

	missing := filepath.Join(dir, "none.bin")
	_, err = storage.OpenFile(context.Background(), missing)
	if !errors.As(err, &te) || te.Path != missing || te.Offset != -1 || !errors.Is(err, storage.ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open of a missing file: %v, want a *tensorfeed.Error for %s wrapping ErrNotFound and fs.ErrNotExist", err, missing)
	}
	if want := missing + ": storage: open: storage: object not found: open " + missing + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Error() = %q, want it to start with %q", err, want)
	}
}
