package webdataset_test

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
)

// photo encodes a small gradient image as JPEG or PNG.
func photo(t testing.TB, w, h, seed int, format string) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(x*7 + seed), uint8(y*5 + seed*3), uint8((x + y + seed) * 3), 255})
		}
	}
	var b bytes.Buffer
	var err error
	if format == "png" {
		err = png.Encode(&b, m)
	} else {
		err = jpeg.Encode(&b, m, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// npyBytes builds a version 1 .npy file as numpy.save does: the header
// padded with spaces and a line end to a multiple of 64 bytes.
func npyBytes(descr string, shape []int, data []byte) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := "(" + strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	tuple += ")"
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(h)))
	b = append(b, h...)
	return append(b, data...)
}

func float32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// makeSamples returns n samples with a JPEG, a PNG mask, a class, a caption, JSON
// metadata and a .npy feature vector each.
func makeSamples(t testing.TB, n int) []webdataset.Sample {
	t.Helper()
	out := make([]webdataset.Sample, n)
	for i := range out {
		out[i] = webdataset.Sample{
			Key: fmt.Sprintf("train/%06d", i),
			Fields: map[string][]byte{
				"jpg":     photo(t, 24, 16, i, "jpg"),
				"seg.png": photo(t, 12, 8, i, "png"),
				"cls":     fmt.Appendf(nil, "%d\n", i%10),
				"txt":     fmt.Appendf(nil, "a photo number %d", i),
				"json":    fmt.Appendf(nil, `{"id": %d, "tags": ["x", "y"]}`, i),
				"npy":     npyBytes("<f4", []int{3}, float32Bytes(float32(i), 0.5, -1)),
			},
		}
	}
	return out
}

// shardBytes writes samples with a Writer and returns the shard's bytes.
func shardBytes(t testing.TB, samples []webdataset.Sample, opts ...webdataset.WriterOption) []byte {
	t.Helper()
	var b bytes.Buffer
	w := webdataset.NewWriter(&b, opts...)
	for _, s := range samples {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeFile writes b to a file named name in dir and returns its path.
func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rawTar writes members named names, each holding its name as data, with
// archive/tar directly, in the given order, so that tests can make shards
// a Writer refuses to.
func rawTar(t testing.TB, names ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: n, Mode: 0o644, Size: int64(len(n))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
