package mnist_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// Prefetch starts goroutines; every test must leave none behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// dataDir holds the real MNIST .gz files.
const dataDir = "../../data/mnist"

func gz(name string) string { return filepath.Join(dataDir, name+".gz") }

// gunzipped opens dataDir/name.gz and returns its uncompressed content as
// a stream, closed when the test ends.
func gunzipped(t testing.TB, name string) io.Reader {
	t.Helper()
	f, err := os.Open(gz(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// gunzipBytes returns the uncompressed content of dataDir/name.gz.
func gunzipBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := io.ReadAll(gunzipped(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gunzipTo writes the uncompressed content of dataDir/name.gz to dir/name
// and returns its path.
func gunzipTo(t testing.TB, dir, name string) string {
	t.Helper()
	return writeFile(t, dir, name, gunzipBytes(t, name))
}

// plainT10k gunzips the test set into a temporary directory, under the
// standard names, and returns the directory.
func plainT10k(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gunzipTo(t, dir, "t10k-images-idx3-ubyte")
	gunzipTo(t, dir, "t10k-labels-idx1-ubyte")
	return dir
}

func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
