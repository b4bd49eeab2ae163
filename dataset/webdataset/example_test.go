package webdataset_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source"
)

// Example writes a shard of captioned, labelled samples, then reads it
// back, decoding each sample's class and caption; the sample without a
// class is skipped by the bad-record policy.
func Example() {
	dir, err := os.MkdirTemp("", "webdataset")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	var shard bytes.Buffer
	w := webdataset.NewWriter(&shard)
	for i, caption := range []string{"a cat", "a dog", "a bird"} {
		fields := map[string][]byte{"txt": []byte(caption)}
		if i != 1 {
			fields["cls"] = fmt.Appendf(nil, "%d", i)
		}
		if err := w.Write(webdataset.Sample{Key: fmt.Sprintf("train/%06d", i), Fields: fields}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(dir, "shard-000000.tar")
	if err := os.WriteFile(path, shard.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}

	type labelled struct {
		Class   int
		Caption string
	}
	skip := source.SkipBad(0.5)
	r := webdataset.Decode(webdataset.Open(path, webdataset.Fields("cls", "txt"), webdataset.OnBad(skip)),
		func(s webdataset.Sample) (labelled, error) {
			c, err := s.Int("cls")
			if err != nil {
				return labelled{}, err
			}
			b, err := s.Bytes("txt")
			t := string(b)
			return labelled{c, t}, err
		})
	for s, err := range r.All(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s.Class, s.Caption)
	}
	fmt.Println(skip.Skipped(), "skipped")
	// Output:
	// 0 a cat
	// 2 a bird
	// 1 skipped
}

// ExampleNPY reads a NumPy array, as numpy.save writes it for
// np.arange(6, dtype=np.float32).reshape(2, 3), into a tensor.
func ExampleNPY() {
	header := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), 0)
	b = append(b, header...)
	for i := range 6 {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(i)))
	}
	a, err := webdataset.NPY(b)
	if err != nil {
		log.Fatal(err)
	}
	d, err := webdataset.Dense[float32](a)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.DType, d.Shape, d.Data)
	// Output: float32 [2 3] [0 1 2 3 4 5]
}

// ExampleNewWriter writes a gzip-compressed shard and lists its samples.
func ExampleNewWriter() {
	f, err := os.CreateTemp("", "shard-*.tar.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	w := webdataset.NewWriter(f, webdataset.Gzip(gzip.BestSpeed))
	for i := range 3 {
		s := webdataset.Sample{Key: fmt.Sprintf("val/%04d", i), Fields: map[string][]byte{
			"cls":  fmt.Appendf(nil, "%d", i%2),
			"json": fmt.Appendf(nil, `{"id": %d}`, i),
		}}
		if err := w.Write(s); err != nil {
			log.Fatal(err)
		}
	}
	if err := cmp.Or(w.Close(), f.Close()); err != nil {
		log.Fatal(err)
	}
	for s, err := range webdataset.Open(f.Name()).All(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s.Key, slices.Sorted(maps.Keys(s.Fields)), s.Offset)
	}
	// Output:
	// val/0000 [cls json] 0
	// val/0001 [cls json] 2048
	// val/0002 [cls json] 4096
}
