package storagetest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// rangeLog records the byte ranges an HTTP server of [ServeDir] was asked
// for, per file (ServeDir's second result; its methods are Before and
// Reset), so that a test can check what a reader read (that a
// resumed pass reads nothing before its offset, say). It is safe for
// concurrent use.
type rangeLog struct {
	mu     sync.Mutex
	ranges map[string][][2]int64 // URL path -> [first, last] of each request
}

// ServeDir serves the files of dir over HTTP on 127.0.0.1 (http.FileServer,
// which answers Range requests) and logs the byte range of every request;
// the test's cleanup stops the server. A request without a Range header is
// logged as the whole file. Files are named by their URL path ("/a.rec").
func ServeDir(t testing.TB, dir string) (*httptest.Server, *rangeLog) {
	t.Helper()
	l := &rangeLog{ranges: map[string][][2]int64{}}
	fsrv := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first, last := int64(0), int64(1<<62)
		if rg, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes="); ok {
			a, b, _ := strings.Cut(rg, "-")
			first, _ = strconv.ParseInt(a, 10, 64)
			if b != "" {
				last, _ = strconv.ParseInt(b, 10, 64)
			}
		}
		l.mu.Lock()
		l.ranges[r.URL.Path] = append(l.ranges[r.URL.Path], [2]int64{first, last})
		l.mu.Unlock()
		fsrv.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, l
}

// Before returns how many bytes of file were requested before offset
// (leaving out the one-byte requests of byte 0 by which package storage's
// opens learn the size), and how many requests were made for it.
func (l *rangeLog) Before(file string, offset int64) (bytes int64, requests int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.ranges[file] {
		if r == [2]int64{0, 0} {
			continue // the open learns the size from byte 0
		}
		bytes += max(0, min(r[1]+1, offset)-r[0])
	}
	return bytes, len(l.ranges[file])
}

// Reset forgets the requests logged so far.
func (l *rangeLog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.ranges)
}
