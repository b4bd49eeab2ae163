package mnist_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/mnist"
)

// FuzzIDX feeds arbitrary bytes to the IDX readers: they must never panic,
// must fail only with a FormatError wrapping ErrFormat, and must agree with
// each other and with the header on what they read.
func FuzzIDX(f *testing.F) {
	labels := gunzipBytes(f, "t10k-labels-idx1-ubyte")
	images := gunzipBytes(f, "t10k-images-idx3-ubyte")
	f.Add(labels[:100])
	f.Add(images[:16+784])
	f.Add(images[:16+300])
	f.Add(gzipBytes(labels[:40]))
	f.Add([]byte{0, 0, 0x0D, 1, 0, 0, 0, 2, 0x3f, 0x80, 0, 0, 0x40, 0, 0, 0})
	f.Add([]byte{0, 0, 0x0E, 0})
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := mnist.DecodeIDX(bytes.NewReader(b), "fuzz")
		if err != nil {
			var fe *mnist.FormatError
			if !errors.Is(err, mnist.ErrFormat) || !errors.As(err, &fe) || fe.File != "fuzz" {
				t.Fatalf("error %v is not a FormatError", err)
			}
			return
		}
		if len(x.Raw) != x.Elems()*x.DType.Size() {
			t.Fatalf("%d bytes for %v %v", len(x.Raw), x.DType, x.Dims)
		}
		if v := mnist.Values[float64](x); len(v.Data) != x.Elems() {
			t.Fatalf("%d values for %v", len(v.Data), x.Dims)
		}
		// The streaming reader reads the same records.
		r, err := mnist.NewIDXReader(bytes.NewReader(b), "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		rec := make([]byte, r.RecordBytes())
		var all []byte
		for i := 0; ; i++ {
			err := r.ReadRaw(rec)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, rec...)
			if i > x.Records() {
				t.Fatal("more records than the header says")
			}
		}
		if !bytes.Equal(all, x.Raw) {
			t.Fatal("streaming and whole-file reads differ")
		}
	})
}
