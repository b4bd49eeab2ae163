package mnist_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
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
	f.Add(badinput.Gzip(labels[:40]))
	f.Add([]byte{0, 0, 0x0D, 1, 0, 0, 0, 2, 0x3f, 0x80, 0, 0, 0x40, 0, 0, 0})
	f.Add([]byte{0, 0, 0x0E, 0})
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte{0, 0, 8, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 8, 3, 0, 0, 0, 1, 0, 4, 0, 0, 0, 4, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		// Small maximums keep every input cheap and reach their checks.
		limits := []mnist.IDXOption{mnist.MaxRecordBytes(1 << 16), mnist.MaxFileBytes(1 << 20)}
		x, err := mnist.DecodeIDX(bytes.NewReader(b), "fuzz", limits...)
		// CheckIDX finds the same first error, and so does a reader
		// told the input's size (which finds a plain file's wrong
		// length from its header, at the same offset).
		info, cerr := mnist.CheckIDX(bytes.NewReader(b), "fuzz", limits...)
		_, serr := mnist.DecodeIDX(bytes.NewReader(b), "fuzz", append(limits, mnist.InputSize(int64(len(b))))...)
		for _, e := range []error{cerr, serr} {
			if (e == nil) != (err == nil) {
				t.Fatalf("DecodeIDX: %v; with another reader: %v", err, e)
			}
		}
		if err != nil {
			var fe, ce, se *mnist.FormatError
			if !errors.Is(err, mnist.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &fe) || fe.File != "fuzz" {
				t.Fatalf("error %v is not a FormatError", err)
			}
			if !errors.As(cerr, &ce) || ce.Error() != fe.Error() {
				t.Fatalf("CheckIDX: %v, DecodeIDX: %v", cerr, err)
			}
			if !errors.As(serr, &se) || se.Offset != fe.Offset || se.Record != fe.Record {
				t.Fatalf("sized: %v, DecodeIDX: %v", serr, err)
			}
			return
		}
		if !mnist.IsIDX(b) {
			t.Fatal("IsIDX does not recognise a good file")
		}
		if info.Records != x.Records() || !slices.Equal(info.Dims, x.Dims) {
			t.Fatalf("CheckIDX %+v, DecodeIDX %v", info, x.Dims)
		}
		if len(x.Raw) != x.Elems()*x.DType.Size() {
			t.Fatalf("%d bytes for %v %v", len(x.Raw), x.DType, x.Dims)
		}
		if v := mnist.Values[float64](x); len(v.Data) != x.Elems() {
			t.Fatalf("%d values for %v", len(v.Data), x.Dims)
		}
		// The streaming reader reads the same records.
		r, err := mnist.NewIDXReader(bytes.NewReader(b), "fuzz", limits...)
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
