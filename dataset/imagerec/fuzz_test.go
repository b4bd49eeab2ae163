package imagerec_test

import (
	"errors"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec/recordio"
)

// FuzzDecodeRecord feeds record payloads to DecodeRecord: it must never
// panic, and must either decode an image whose pixels match its shape or
// fail with a *RecordError wrapping one of the package's sentinels. The
// seed corpus holds real records of every kind in testdata, and broken
// copies of them.
func FuzzDecodeRecord(f *testing.F) {
	for _, name := range []string{"mnist_t10k_1000_jpg", "mnist_t10k_1000_png_gray", "mnist_t10k_1000_jpg_multilabel"} {
		for _, r := range records(f, tdPath(name, ".rec"))[:3] {
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
		for _, dec := range decoders() {
			rec := recordio.Record{File: "fuzz.rec", Offset: 64, Index: 2, Data: payload}
			ex, err := imagerec.DecodeRecord(rec, imagerec.ReadOptions{Decoder: dec, Channels: channels, MaxPixels: 1 << 20})
			if err != nil {
				var re *imagerec.RecordError
				if !errors.As(err, &re) || re.Index != 2 || re.Offset != 64 || re.File != "fuzz.rec" {
					t.Fatalf("%s: error %v is not a *RecordError for the record", dec.Name(), err)
				}
				if !errors.Is(err, imagerec.ErrHeader) && !errors.Is(err, imagerec.ErrImage) {
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
