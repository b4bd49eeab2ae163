package mnist_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
)

// Passes over remote files start goroutines (read-ahead); every test must
// leave none behind. The shared fixtures are removed at the end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if plain.dir != "" {
			os.RemoveAll(plain.dir)
		}
	}))
}

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
	b, err := io.ReadAll(gunzipped(t, name))
	if err != nil {
		t.Fatal(err)
	}
	unzipped.Store(name, b)
	return bytes.Clone(b)
}

// plain is the test set gunzipped once, under the standard names, in a
// folder the tests read and never change.
var plain struct {
	once sync.Once
	dir  string
	err  error
}

// plainT10k returns the folder of the gunzipped test set; a test that
// renames or changes files copies them instead.
func plainT10k(t testing.TB) string {
	t.Helper()
	plain.once.Do(func() {
		if plain.dir, plain.err = os.MkdirTemp("", "mnist-test-"); plain.err != nil {
			return
		}
		for _, n := range []string{"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"} {
			if plain.err == nil {
				plain.err = os.WriteFile(filepath.Join(plain.dir, n), gunzipBytes(t, n), 0o644)
			}
		}
	})
	if plain.err != nil {
		t.Fatal(plain.err)
	}
	return plain.dir
}

// wantFormatError checks that err is a *tensorfeed.Error about file at offset (any
// offset when offset < 0) that says msg and wraps mnist.ErrFormat, tensorfeed.ErrBadData
// and cause.
func wantFormatError(t *testing.T, err error, file string, offset int64, msg string, cause error) *tensorfeed.Error {
	t.Helper()
	return fixture.WantError(t, err, mnist.ErrFormat, file, offset, msg, cause)
}
