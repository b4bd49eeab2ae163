package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/storage"
)

// fakeS3 is gofakes3 served over HTTP on 127.0.0.1, behind a handler that
// injects faults and counts requests.
type fakeS3 struct {
	t         testing.TB
	backend   *s3mem.Backend
	handler   http.Handler
	addr      string
	srv       *httptest.Server
	transport *http.Transport

	mu        sync.Mutex
	failGets  int           // the next object GETs answered 503
	resetGets int           // the next object GETs answered by closing the connection
	deny      bool          // every request answered 403 AccessDenied
	delay     time.Duration // added to every object GET, as a network's latency
	ranges    []string

	requests atomic.Int64
	gets     atomic.Int64 // object GETs that reached the handler
	inFlight atomic.Int64
	maxGets  atomic.Int64 // most object GETs at once
}

func newFakeS3(t testing.TB, bucket string) *fakeS3 {
	t.Helper()
	f := &fakeS3{t: t, backend: s3mem.New(), transport: &http.Transport{}}
	f.handler = gofakes3.New(f.backend).Server()
	if err := f.backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	f.start()
	t.Cleanup(func() {
		f.stop()
		f.transport.CloseIdleConnections()
	})
	return f
}

func (f *fakeS3) start() {
	f.t.Helper()
	addr := f.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var l net.Listener
	var err error
	for range 50 { // the port of a stopped server may take a moment to free
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		f.t.Fatal(err)
	}
	f.addr = l.Addr().String()
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(f.serve)}}
	srv.Start()
	f.mu.Lock()
	f.srv = srv
	f.mu.Unlock()
}

func (f *fakeS3) stop() {
	f.mu.Lock()
	srv := f.srv
	f.srv = nil
	f.mu.Unlock()
	if srv != nil {
		srv.CloseClientConnections()
		srv.Close()
	}
}

func (f *fakeS3) endpoint() string { return "http://" + f.addr }

// opts are the options that reach this server with fast retries.
func (f *fakeS3) opts(more ...storage.Option) []storage.Option {
	return append([]storage.Option{
		storage.Endpoint(f.endpoint()),
		storage.Credentials("test", "testsecret", ""),
		storage.Transport(f.transport),
		storage.Retry(5, time.Millisecond, 20*time.Millisecond),
	}, more...)
}

func (f *fakeS3) put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	if _, err := f.backend.PutObject(bucket, key, map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

func (f *fakeS3) serve(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	objectGet := r.Method == http.MethodGet && r.Header.Get("Range") != ""
	f.mu.Lock()
	deny, delay := f.deny, f.delay
	fail, reset := false, false
	if objectGet {
		f.ranges = append(f.ranges, r.Header.Get("Range"))
		if f.failGets > 0 {
			f.failGets--
			fail = true
		} else if f.resetGets > 0 {
			f.resetGets--
			reset = true
		}
	}
	f.mu.Unlock()
	if deny {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		if r.Method != http.MethodHead {
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`))
		}
		return
	}
	if objectGet {
		time.Sleep(delay)
		f.gets.Add(1)
		n := f.inFlight.Add(1)
		defer f.inFlight.Add(-1)
		for {
			m := f.maxGets.Load()
			if n <= m || f.maxGets.CompareAndSwap(m, n) {
				break
			}
		}
	}
	switch {
	case fail:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`))
		return
	case reset:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not a clean close
		}
		conn.Close()
		return
	}
	f.handler.ServeHTTP(w, r)
}

func (f *fakeS3) setFaults(failGets, resetGets int, deny bool) {
	f.mu.Lock()
	f.failGets, f.resetGets, f.deny = failGets, resetGets, deny
	f.mu.Unlock()
}

func (f *fakeS3) rangesSeen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ranges...)
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func mustOpen(t testing.TB, name string, opts ...storage.Option) storage.File {
	t.Helper()
	return mustOpenCtx(t, context.Background(), name, opts...)
}

// mustOpenCtx opens name with ctx, which bounds its requests, and closes
// it when the test ends.
func mustOpenCtx(t testing.TB, ctx context.Context, name string, opts ...storage.Option) storage.File {
	t.Helper()
	o, err := storage.OpenFile(ctx, name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// wantContains checks that err is a *tensorfeed.Error whose Path is path,
// whose Offset is the start of the range "bytes A-B" when one of parts
// names one (-1 when none does), and whose text holds path and parts.
func wantContains(t testing.TB, err error, path string, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %s and containing %q", path, parts)
	}
	var te *tensorfeed.Error
	if !errors.As(err, &te) {
		t.Fatalf("error %q (%T) is not a *tensorfeed.Error", err, err)
	}
	wantOff := int64(-1)
	for _, p := range parts {
		var a, b int64
		if n, _ := fmt.Sscanf(p, "bytes %d-%d", &a, &b); n == 2 {
			wantOff = a
		}
	}
	if te.Path != path || te.Offset != wantOff || te.Record != -1 {
		t.Errorf("error %q: Path %q, Offset %d, Record %d; want %q, %d, -1", err, te.Path, te.Offset, te.Record, path, wantOff)
	}
	for _, p := range append([]string{path}, parts...) {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
