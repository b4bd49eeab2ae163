package idx_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/storage"
)

// ReadFile and CheckFile read http:// URLs through storage's defaults, as
// they read the local files.
func TestHTTPFiles(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir(dataDir)))
	t.Cleanup(func() {
		srv.Close()
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	})
	base := srv.URL
	want, err := idx.ReadFile(gz("t10k-labels-idx1-ubyte"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := idx.ReadFile(base + "/t10k-labels-idx1-ubyte.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Raw, want.Raw) || got.Records() != want.Records() {
		t.Errorf("ReadFile over HTTP: %d records, want %d", got.Records(), want.Records())
	}
	info, err := idx.CheckFile(base + "/t10k-labels-idx1-ubyte.gz")
	if err != nil || info.Records != 10000 || !info.Gzipped {
		t.Errorf("CheckFile over HTTP: %+v, %v", info, err)
	}
	if _, err := idx.CheckFile(base + "/nothing"); !errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), base+"/nothing") {
		t.Errorf("CheckFile of a missing URL: %v", err)
	}
}
