package decode_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/source"
)

// The images of the image record test files.
const testdata = "../../dataset/imagerec/testdata"

// photosRec is the benchmark set, outside the repository: tests that need
// it skip when it is absent.
var photosRec = filepath.Join("..", "..", "..", "shared", "data", "imagerec", "bench", "photos_1536.rec")

func tdPath(name, ext string) string { return filepath.Join(testdata, name+ext) }

func needPhotos(tb testing.TB) string {
	tb.Helper()
	if _, err := os.Stat(photosRec); err != nil {
		tb.Skipf("benchmark images not available: %v", err)
	}
	return photosRec
}

// imageBytes returns the image part of every record of a .rec file.
func imageBytes(tb testing.TB, path string) [][]byte {
	tb.Helper()
	recs, err := source.Collect(context.Background(), recordio.Open(path))
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, r := range recs {
		_, img, err := imagerec.ParseRecord(r.Data)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, img)
	}
	return out
}

// decoders returns the decoders of this build: Go, and libjpeg-turbo when
// built with the tag turbojpeg.
func decoders() []decode.Decoder {
	ds := []decode.Decoder{decode.Go()}
	if d := decode.Default(); d.Name() != "go" {
		ds = append(ds, d)
	}
	return ds
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
