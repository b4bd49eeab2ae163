package imagerec_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
)

// FuzzDecodeRecord feeds record payloads to DecodeRecord: it must never
// panic, and must either decode an image whose pixels match its shape or
// fail with a *tensorfeed.Error wrapping one of the package's sentinels. The
// seed corpus holds real records of every kind in testdata, and broken
// copies of them.
func FuzzDecodeRecord(f *testing.F) {
	for _, name := range []string{"mnist_t10k_1000_jpg", "mnist_t10k_1000_png_gray", "mnist_t10k_1000_jpg_multilabel"} {
		for _, r := range recimages.Records(f, tdPath(name, ".rec"))[:3] {
			f.Add(r.Data, uint8(0))
			f.Add(r.Data, uint8(3))
			f.Add(r.Data[:len(r.Data)/2], uint8(1))
			bad := append([]byte(nil), r.Data...)
			bad[0] = 200 // a flag far larger than the record
			f.Add(bad, uint8(0))
		}
	}
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, payload []byte, ch uint8) {
		channels := []int{0, 1, 3, 4}[ch%4]
		for _, dec := range recimages.Decoders() {
			rec := recordio.Record{File: "fuzz.rec", Offset: 64, Index: 2, Data: payload}
			ex, err := imagerec.DecodeRecord(rec, dec, decode.Options{Channels: channels, MaxPixels: 1 << 20})
			if err != nil {
				var re *tensorfeed.Error
				if !errors.As(err, &re) || re.Record != 2 || re.Offset != 64 || re.Path != "fuzz.rec" {
					t.Fatalf("%s: error %v is not a *tensorfeed.Error for the record", dec.Name(), err)
				}
				if !errors.Is(err, imagerec.ErrHeader) && !errors.Is(err, decode.ErrImage) {
					t.Fatalf("%s: error %v wraps no sentinel", dec.Name(), err)
				}
				continue
			}
			img := ex.Image
			if img.Width < 1 || img.Height < 1 || len(img.Pix) != img.Width*img.Height*img.Channels {
				t.Fatalf("%s: image %v with %d bytes", dec.Name(), img.Shape(), len(img.Pix))
			}
			if channels != 0 && img.Channels != channels {
				t.Fatalf("%s: %d channels, asked for %d", dec.Name(), img.Channels, channels)
			}
			if len(ex.Label) == 0 {
				t.Fatalf("%s: no label", dec.Name())
			}
		}
	})
}

// FuzzParseList feeds arbitrary bytes to the .lst parser. It must never
// panic; an error is a *tensorfeed.Error wrapping ErrList and tensorfeed.ErrBadData
// with the file and a line number inside the input; accepted entries have a
// path, labels and unique indexes, and written back with WriteList they
// parse to the same indexes, label counts and paths.
func FuzzParseList(f *testing.F) {
	lst, err := os.ReadFile(tdPath("mnist_t10k_1000_jpg_multilabel", ".lst"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(lst[:512])
	f.Add([]byte("0\t7\tt10k/00000.jpg\n 1 \t 2.5 \t -1 \t  a b/c d.png \r\n\n42\t1e3\t0\t0\tx.jpg"))
	f.Add([]byte("0\t1\t2\t\n"))
	f.Add([]byte("0\t1\ta\n0\t1\tb\n"))
	f.Add([]byte("18446744073709551615\tNaN\t-Inf\tp\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := imagerec.ParseList(bytes.NewReader(data), "fuzz.lst")
		if err != nil {
			var le *tensorfeed.Error
			if !errors.As(err, &le) || !errors.Is(err, imagerec.ErrList) || !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("error %v is not a *tensorfeed.Error wrapping ErrList and ErrBadData", err)
			}
			if le.Path != "fuzz.lst" || le.Line < 1 || le.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error %v: line %d of a %d-line input", err, le.Line, bytes.Count(data, []byte("\n"))+1)
			}
			return
		}
		seen := map[uint64]bool{}
		for _, e := range entries {
			if e.Path == "" || len(e.Labels) == 0 || seen[e.Index] {
				t.Fatalf("entry %+v: empty path, no label or a repeated index", e)
			}
			seen[e.Index] = true
		}
		var b bytes.Buffer
		if err := imagerec.WriteList(&b, entries); err != nil {
			t.Fatal(err)
		}
		again, err := imagerec.ParseList(&b, "again.lst")
		if err != nil || len(again) != len(entries) {
			t.Fatalf("written back: %d entries, %v; want %d", len(again), err, len(entries))
		}
		for i, e := range entries {
			if a := again[i]; a.Index != e.Index || a.Path != e.Path || len(a.Labels) != len(e.Labels) {
				t.Fatalf("entry %d written back as %+v, want %+v", i, a, e)
			}
		}
	})
}
