package tfrecord_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
)

// FuzzReader feeds arbitrary bytes to the pull Reader: it must end with
// io.EOF or a bad-data error, never panic, and never hold more than the
// input's bytes in a record.
func FuzzReader(f *testing.F) {
	f.Add(encode(f, sampleRecords()[:3], false))
	f.Add(encode(f, sampleRecords()[:3], true))
	f.Add(append(header(1<<40), "tiny"...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := tfrecord.NewReader(bytes.NewReader(in), "")
		tfrecord.SetSize(r, int64(len(in)))
		tfrecord.SetMaxRecordBytes(r, 1<<20)
		for range 1000 {
			b, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !errors.Is(err, tensorfeed.ErrBadData) {
					t.Fatalf("error %v does not wrap ErrBadData", err)
				}
				if !errors.Is(err, tfrecord.ErrDataChecksum) {
					return
				}
				continue
			}
			if !r.Gzip() && len(b) > len(in) {
				t.Fatalf("record of %d bytes from %d bytes of input", len(b), len(in))
			}
		}
	})
}

// FuzzParseExample feeds arbitrary bytes to ParseExample: an error must wrap
// ErrFormat, and a parsed Example must survive Marshal and parse again.
func FuzzParseExample(f *testing.F) {
	f.Add(known)
	var ex tfrecord.Example
	ex.SetFloat32s("f", 1, 2)
	ex.SetBytes("b", []byte("x"))
	f.Add(ex.Marshal())
	f.Fuzz(func(t *testing.T, in []byte) {
		ex, err := tfrecord.ParseExample(in)
		if err != nil {
			if !errors.Is(err, tfrecord.ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		out := ex.Marshal()
		ex2, err := tfrecord.ParseExample(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !bytes.Equal(ex2.Marshal(), out) {
			t.Fatal("Marshal is not stable")
		}
	})
}
