package format_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
)

// gzipFile compresses the file at path into path+".gz".
func gzipFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(path+".gz", b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path + ".gz"
}

func TestDetectGzip(t *testing.T) {
	dir := t.TempDir()
	specs := []string{
		gzipFile(t, writeTF(t, dir, "a", "t0")),
		gzipFile(t, writeWDS(t, dir, "b", "k0")),
		gzipFile(t, writeIDX(t, dir, "c", 9)),
	}
	got := collect(t, format.Open(specs))
	if want := "t0 k0=tk0 \x09"; payloads(got) != want {
		t.Fatalf("payloads %q, want %q", payloads(got), want)
	}
}

// A format's positioned error reaches the consumer as it is, naming the
// file, with several workers as with one.
func TestPositionedError(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.rec", "b.rec", "c.rec"} {
		writeRec(t, dir, n, "r0", "r1")
	}
	bad := filepath.Join(dir, "b.rec")
	data, _ := os.ReadFile(bad)
	data[len(data)-8] ^= 0xff // the second record's magic word
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		_, err := source.Collect(context.Background(), format.Open([]string{filepath.Join(dir, "*.rec")}, format.Workers(workers)))
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || !errors.Is(err, recordio.ErrFormat) {
			t.Fatalf("workers %d: error %v is not a *tensorfeed.Error wrapping recordio.ErrFormat", workers, err)
		}
		if fe.Path != bad {
			t.Fatalf("workers %d: error %v does not name %s", workers, err, bad)
		}
	}
}
