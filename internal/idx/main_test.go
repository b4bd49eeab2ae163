package idx_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
)

// dataDir holds the real MNIST .gz files.
const dataDir = "../../data/mnist"

func gz(name string) string { return filepath.Join(dataDir, name+".gz") }

// unzipped holds the uncompressed content of the files of dataDir that the
// tests have read, so that each is gunzipped once per process.
var unzipped sync.Map // name -> []byte

// gunzipBytes returns the uncompressed content of dataDir/name.gz, a copy
// of its own for the caller to change.
func gunzipBytes(t testing.TB, name string) []byte {
	t.Helper()
	if b, ok := unzipped.Load(name); ok {
		return bytes.Clone(b.([]byte))
	}
	f, err := os.Open(gz(name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	unzipped.Store(name, b)
	return bytes.Clone(b)
}

// wantError checks that err is a *tensorfeed.Error about file at offset (any
// offset when offset < 0) that says msg and wraps idx.ErrFormat, tensorfeed.ErrBadData
// and cause.
func wantError(t *testing.T, err error, file string, offset int64, msg string, cause error) *tensorfeed.Error {
	t.Helper()
	return fixture.WantError(t, err, idx.ErrFormat, file, offset, msg, cause)
}
