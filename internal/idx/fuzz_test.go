package idx_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
)

// FuzzIDX feeds arbitrary bytes to the IDX readers: they must never panic,
// must fail only with a *tensorfeed.Error wrapping ErrFormat, and must agree with
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
		limits := []idx.Option{idx.MaxRecordBytes(1 << 16), idx.MaxFileBytes(1 << 20)}
		x, err := idx.Decode(bytes.NewReader(b), "fuzz", limits...)
		// Check finds the same first error, and so does a reader
		// told the input's size (which finds a plain file's wrong
		// length from its header, at the same offset).
		info, cerr := idx.Check(bytes.NewReader(b), "fuzz", limits...)
		_, serr := idx.Decode(bytes.NewReader(b), "fuzz", append(limits, idx.InputSize(int64(len(b))))...)
		for _, e := range []error{cerr, serr} {
			if (e == nil) != (err == nil) {
				t.Fatalf("Decode: %v; with another reader: %v", err, e)
			}
		}
		if err != nil {
			var fe, ce, se *tensorfeed.Error
			if !errors.Is(err, idx.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &fe) || fe.Path != "fuzz" {
				t.Fatalf("error %v is not a positioned error", err)
			}
			if !errors.As(cerr, &ce) || ce.Error() != fe.Error() {
				t.Fatalf("Check: %v, Decode: %v", cerr, err)
			}
			if !errors.As(serr, &se) || se.Offset != fe.Offset || se.Record != fe.Record {
				t.Fatalf("sized: %v, Decode: %v", serr, err)
			}
			return
		}
		if !idx.Is(b) {
			t.Fatal("Is does not recognise a good file")
		}
		if info.Records != x.Records() || !slices.Equal(info.Dims, x.Dims) {
			t.Fatalf("Check %+v, Decode %v", info, x.Dims)
		}
		if len(x.Raw) != x.Elems()*x.DType.Size() {
			t.Fatalf("%d bytes for %v %v", len(x.Raw), x.DType, x.Dims)
		}
		if v := idx.Values[float64](x); len(v.Data) != x.Elems() {
			t.Fatalf("%d values for %v", len(v.Data), x.Dims)
		}
		// The streaming reader reads the same records.
		r, err := idx.NewReader(bytes.NewReader(b), "fuzz", limits...)
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
