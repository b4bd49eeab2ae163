// Package storagetest serves objects from an in-process S3 server
// (gofakes3 over HTTP on 127.0.0.1) so that tests of readers that take
// URLs read real s3:// objects through package storage.
package storagetest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed/storage"
)

// S3 is an in-process S3 server for one test.
type S3 struct {
	t         testing.TB
	backend   *s3mem.Backend
	server    *httptest.Server
	transport *http.Transport
}

// NewS3 starts a server with the given buckets; the test's cleanup stops
// it and closes its connections.
func NewS3(t testing.TB, buckets ...string) *S3 {
	t.Helper()
	s := &S3{t: t, backend: s3mem.New(), transport: &http.Transport{}}
	for _, b := range buckets {
		if err := s.backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	s.server = httptest.NewServer(gofakes3.New(s.backend).Server())
	t.Cleanup(func() {
		s.server.Close()
		s.transport.CloseIdleConnections()
	})
	return s
}

// Put stores data as s3://bucket/key and returns that URL.
func (s *S3) Put(bucket, key string, data []byte) string {
	s.t.Helper()
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	if _, err := s.backend.PutObject(bucket, key, meta, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		s.t.Fatal(err)
	}
	return "s3://" + bucket + "/" + key
}

// PutFile stores the local file at path as s3://bucket/key and returns
// that URL.
func (s *S3) PutFile(bucket, key, path string) string {
	s.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatal(err)
	}
	return s.Put(bucket, key, data)
}

// Options are the storage options that reach this server (its endpoint,
// test credentials and a transport closed at cleanup), followed by more.
func (s *S3) Options(more ...storage.Option) []storage.Option {
	return append([]storage.Option{
		storage.Endpoint(s.server.URL),
		storage.Credentials("storagetest", "storagetest-secret", ""),
		storage.Transport(s.transport),
	}, more...)
}
