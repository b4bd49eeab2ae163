package recordio_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
)

// Open and OpenIndexed take the same file lists: ';'-separated paths, a
// directory (its .rec files, not its .idx), a glob, and a URL whose query
// holds a ';', which reaches the server whole (a ';' after a URL's '?'
// separates only before another URL).
func TestOpenLists(t *testing.T) {
	dir := t.TempDir()
	a, b := writeIndexed(t, dir, "a", 3, 'a'), writeIndexed(t, dir, "b", 2, 'b')
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		http.ServeContent(w, r, "a.rec", time.Time{}, strings.NewReader(string(data)))
	}))
	defer srv.Close()
	url := srv.URL + "/a.rec?sig=x;y"
	ctx := context.Background()
	for _, c := range []struct {
		list string
		want string // the records' first bytes
	}{
		{a + ";" + b, "aaabb"},
		{b + ";" + a, "bbaaa"},
		{dir, "aaabb"},
		{filepath.Join(dir, "?.rec"), "aaabb"},
		{url + ";" + url, "aaaaaa"},
		{b + ";" + url, "bbaaa"},
	} {
		recs, err := source.Collect(ctx, recordio.Open(c.list))
		if err != nil {
			t.Fatalf("Open(%q): %v", c.list, err)
		}
		var got []byte
		for _, r := range recs {
			got = append(got, r.Data[0])
		}
		if string(got) != c.want {
			t.Errorf("Open(%q) = %q, want %q", c.list, got, c.want)
		}
		if strings.Contains(c.list, "?") {
			continue // no .idx is served
		}
		x, err := recordio.OpenIndexed(ctx, c.list)
		if err != nil {
			t.Fatalf("OpenIndexed(%q): %v", c.list, err)
		}
		payloads, err := source.Collect(ctx, source.ReadIndexed(x))
		x.Close()
		got = got[:0]
		for _, p := range payloads {
			got = append(got, p[0])
		}
		if err != nil || string(got) != c.want {
			t.Errorf("OpenIndexed(%q) = %q, %v; want %q", c.list, got, err, c.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, q := range queries {
		if q != "sig=x;y" {
			t.Errorf("the server got query %q, want sig=x;y", q)
		}
	}
	if len(queries) == 0 {
		t.Error("the URL was not read")
	}
	if _, err := source.Collect(ctx, recordio.Open(filepath.Join(dir, "*.none"))); err == nil {
		t.Error("a glob without a match: no error")
	}
}
