package tfrecord_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source"
)

// encode writes recs through a Writer, gzip-compressed when gz is set.
func encode(t testing.TB, recs [][]byte, gz bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	var opts []tfrecord.WriterOption
	if gz {
		opts = append(opts, tfrecord.GzipLevel(gzip.DefaultCompression))
	}
	w := tfrecord.NewWriter(&buf, opts...)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFile writes data to a new file in a test directory and returns its path.
func writeFile(t testing.TB, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.tfrecord")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll runs one pass of r and returns its records' data (copied) and the
// error that ended it.
func readAll(r source.Reader[tfrecord.Record]) ([][]byte, []tfrecord.Record, error) {
	var data [][]byte
	var recs []tfrecord.Record
	for rec, err := range r.All(context.Background()) {
		if err != nil {
			return data, recs, err
		}
		data = append(data, bytes.Clone(rec.Data))
		rec.Data = nil
		recs = append(recs, rec)
	}
	return data, recs, nil
}

// sampleRecords is a few records of varied sizes, an empty one and one
// longer than the reader's buffer included.
func sampleRecords() [][]byte {
	big := make([]byte, 200<<10)
	for i := range big {
		big[i] = byte(i * 7)
	}
	return [][]byte{[]byte("hello"), {}, []byte("tfrecord"), big, []byte("last")}
}
