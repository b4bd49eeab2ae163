package webdataset_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// FuzzReader reads arbitrary shard contents with small limits, every bad
// sample skipped: the reader must never panic nor take more memory than
// its limit, every sample must have a key and fields, and every failure
// must be a *tensorfeed.Error about the shard that wraps ErrBadData. Half
// the inputs (an odd last byte) are read under IgnoreZeros.
func FuzzReader(f *testing.F) {
	f.Add(rawTar(f, "a.jpg", "a.cls", "b.jpg", "a.txt"))
	f.Add(rawTar(f, "x.seg.png", "x.png", "d/y.txt", "README"))
	small := []webdataset.Sample{
		{Key: "s/0", Fields: map[string][]byte{"cls": []byte("3\n"), "npy": npyBytes("|u1", []int{2}, []byte{1, 2})}},
		{Key: "s/1", Fields: map[string][]byte{"cls": []byte("x")}},
	}
	f.Add(shardBytes(f, small))
	f.Add(shardBytes(f, small, webdataset.Gzip(1)))
	f.Add(append(rawTar(f, "a.jpg"), rawTar(f, "b.cls", "b.jpg")...)) // archives joined end to end
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.tar")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := []webdataset.Option{webdataset.MaxMemberBytes(1 << 16), webdataset.Fields("cls"), webdataset.OnBad(source.SkipBad(1))}
		if len(data) > 0 && data[len(data)-1]&1 == 1 {
			opts = append(opts, webdataset.IgnoreZeros())
		}
		r := webdataset.Open(path, opts...)
		for s, err := range r.All(context.Background()) {
			if err != nil {
				var e *tensorfeed.Error
				if !errors.As(err, &e) || !errors.Is(err, tensorfeed.ErrBadData) || e.Path != path || e.Offset < 0 {
					t.Fatalf("error %v is not a positioned *tensorfeed.Error", err)
				}
				return
			}
			if s.Key == "" || len(s.Fields) == 0 || s.Shard != path {
				t.Fatalf("sample %+v", s)
			}
			if _, err := s.Int("cls"); err != nil && !(errors.Is(err, webdataset.ErrFormat) && strings.Contains(err.Error(), "field does not decode")) {
				t.Fatalf("Int: %v", err)
			}
		}
	})
}

// FuzzNPY parses arbitrary bytes as a .npy array: it must never panic nor
// allocate from the header, an array's data must be exactly its shape's
// bytes, and every failure must be an *tensorfeed.Error inside the bytes.
func FuzzNPY(f *testing.F) {
	f.Add(npyBytes("<f4", []int{2, 3}, make([]byte, 24)))
	f.Add(npyBytes("|u1", nil, []byte{1}))
	f.Add(npyBytes("<i8", []int{0}, nil))
	f.Add(withHeader(`{"descr": "<i4", "shape": (1,), "fortran_order": False}`, make([]byte, 4)))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := webdataset.NPY(b)
		if err != nil {
			var ne *tensorfeed.Error
			if !errors.As(err, &ne) || !errors.Is(err, tensorfeed.ErrBadData) || ne.Offset < 0 || ne.Offset > int64(len(b)) {
				t.Fatalf("error %v is not a *tensorfeed.Error inside the bytes", err)
			}
			return
		}
		if sample.Elems(a.Shape)*a.DType.Size() != len(a.Data) {
			t.Fatalf("shape %v of %v with %d bytes", a.Shape, a.DType, len(a.Data))
		}
		switch a.DType {
		case sample.Float32:
			_, err = webdataset.Dense[float32](a)
		case sample.Uint8:
			_, err = webdataset.Dense[uint8](a)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
}
