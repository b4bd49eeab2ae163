package storage

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-0/10", "bytes */0", "bytes 5-9/10", "bytes -1-2/3", "bytes 1-2/-3", "", "bytes 9223372036854775807-1/9223372036854775807", "bytes 5-4/10", "bytes 5/10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, ok := parseContentRange(s)
		if !ok {
			return
		}
		if total < 0 {
			t.Fatalf("%q: negative total %d", s, total)
		}
		if (first < 0 || last < 0) && (first != -1 || last != -1) {
			t.Fatalf("%q: first %d last %d: only */total has no range", s, first, last)
		}
		if last < first {
			t.Fatalf("%q: last %d before first %d", s, last, first)
		}
	})
}

func TestScheme(t *testing.T) {
	for name, want := range map[string]string{
		"s3://b/k": "s3", "HTTPS://x/y": "https", "data/x.rec": "", `C://x`: "", "/a://b": "", "a b://c": "",
	} {
		if got := scheme(name); got != want {
			t.Errorf("scheme(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestBackoffBounded(t *testing.T) {
	cfg := defaults()
	for attempt := 1; attempt < 100; attempt++ {
		if d := backoff(cfg, attempt); d < 0 || d > cfg.backoffMax {
			t.Fatalf("backoff(%d) = %v", attempt, d)
		}
	}
}

// Without a Transport option, an http(s):// object's concurrent range
// requests reuse their connections: rounds of 16 reads at once dial 16
// connections in all, not 14 more each round as with Go's default of 2
// idle connections per host.
func TestHTTPDefaultTransportKeepsConnections(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<12)
	var dials atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(data))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	defer httpTransport().(interface{ CloseIdleConnections() }).CloseIdleConnections()
	f, err := OpenFile(context.Background(), srv.URL+"/f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const inFlight, rounds = 16, 5
	for range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, inFlight)
		for i := range inFlight {
			wg.Go(func() {
				p := make([]byte, 1000)
				if _, err := f.ReadAt(p, int64(i)*1000); err != nil {
					errs <- err
				} else if !bytes.Equal(p, data[i*1000:(i+1)*1000]) {
					errs <- fmt.Errorf("read %d: wrong bytes", i)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	if n := dials.Load(); n > inFlight+1 {
		t.Errorf("%d rounds of %d reads at once dialled %d connections, want at most %d", rounds, inFlight, n, inFlight+1)
	}
}
