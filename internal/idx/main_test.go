package idx_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/idx"
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

func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantError checks that err is a *tensorfeed.Error about file at offset
// (any offset when offset < 0) that says msg and wraps ErrFormat,
// tensorfeed.ErrBadData and cause, and returns it.
func wantError(t *testing.T, err error, file string, offset int64, msg string, cause error) *tensorfeed.Error {
	t.Helper()
	var e *tensorfeed.Error
	if !errors.As(err, &e) || !errors.Is(err, idx.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("error %v (%T) is not a *tensorfeed.Error wrapping ErrFormat and ErrBadData", err, err)
	}
	if e.Path != file || (offset >= 0 && e.Offset != offset) || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q: want file %s, offset %d, %q", err, file, offset, msg)
	}
	if cause != nil && !errors.Is(err, cause) {
		t.Errorf("error %v does not wrap %v", err, cause)
	}
	return e
}
