package recimages

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// WriteRec writes payloads as a .rec file in a temporary folder and
// returns its path and the byte offset of each record.
func WriteRec(tb testing.TB, payloads ...[]byte) (string, []int64) {
	tb.Helper()
	var buf bytes.Buffer
	w := recordio.NewWriter(&buf)
	var offs []int64
	for _, p := range payloads {
		offs = append(offs, w.Tell())
		if err := w.Write(p); err != nil {
			tb.Fatal(err)
		}
	}
	path := filepath.Join(tb.TempDir(), "bad.rec")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path, offs
}

// Mixed returns the payloads of the first n records of src with those at
// the bad positions broken (an even position loses its last 200 bytes, a
// truncated JPEG; an odd one gets a header flag that runs past the
// record), and the payloads of the good records alone.
func Mixed(src []recordio.Record, n int, bad ...int) (all, good [][]byte) {
	for i := range n {
		p := src[i].Data
		if !slices.Contains(bad, i) {
			all, good = append(all, p), append(good, p)
			continue
		}
		b := slices.Clone(p)
		if i%2 == 0 {
			b = b[:len(b)-200]
		} else {
			b[0], b[1] = 0xff, 0xff
		}
		all = append(all, b)
	}
	return all, good
}
