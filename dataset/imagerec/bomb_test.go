package imagerec_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/source"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// jpegBomb is the header of a w x h JPEG with three components: a frame
// header (SOF2 when progressive, else SOF0) with 1x1 sampling, quantisation
// and Huffman tables, a scan header and a few bytes of scan data. Decoded,
// it would take w*h*3 bytes of planes, and 12 bytes a pixel more of
// coefficients when progressive.
func jpegBomb(w, h int, progressive bool) []byte {
	b := []byte{0xff, 0xd8}
	seg := func(m byte, body ...byte) {
		b = append(b, 0xff, m)
		b = binary.BigEndian.AppendUint16(b, uint16(len(body)+2))
		b = append(b, body...)
	}
	seg(0xdb, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)...)
	sof := byte(0xc0)
	if progressive {
		sof = 0xc2
	}
	seg(sof, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0)
	// A DC table with one code of length 1 for category 0.
	dht := append([]byte{0x00, 1}, make([]byte, 15)...)
	seg(0xc4, append(dht, 0)...)
	se := byte(63)
	if progressive {
		se = 0
	}
	seg(0xda, 3, 1, 0, 2, 0, 3, 0, 0, se, 0)
	b = append(b, make([]byte, 64)...)
	return append(b, 0xff, 0xd9)
}

// The Iter refuses a bomb in a record with a *RecordError naming the record,
// whatever the thread count, and SkipBad skips it.
func TestIterBomb(t *testing.T) {
	good := records(t, tdPath(mnistJPG, ".rec"))
	h, _, err := imagerec.ParseRecord(good[1].Data)
	if err != nil {
		t.Fatal(err)
	}
	bomb := imagerec.AppendRecord(nil, h, jpegBomb(8000, 8000, true))
	path, offs := writeRec(t, good[0].Data, bomb, good[2].Data)
	var texts []string
	for _, threads := range []int{1, 2} {
		cfg := mnistConfig()
		cfg.Data.RecPath = path
		cfg.Batch = batchOptions{Size: 2, Last: batch.Keep}
		cfg.Backend.Threads = threads
		var err error
		n := allocated(func() { err = passErr(newIter(t, cfg)) })
		var re *imagerec.RecordError
		if !errors.As(err, &re) || re.Index != 1 || re.Offset != offs[1] || !errors.Is(err, decode.ErrImage) {
			t.Fatalf("threads %d: %v, want a *RecordError for record 1", threads, err)
		}
		if n > 64<<20 {
			t.Errorf("threads %d: %d bytes allocated", threads, n)
		}
		texts = append(texts, err.Error())
		cfg.Data.SkipBad = source.SkipBad(1)
		it := newIter(t, cfg)
		if got := pass(t, it); len(got) != 1 || got[0].Data[0].Len() != 2 || it.Skipped() != 1 {
			t.Errorf("threads %d: SkipBad: %d batches, %d skipped", threads, len(got), it.Skipped())
		}
	}
	if texts[0] != texts[1] {
		t.Errorf("error text depends on the threads:\n%s\n%s", texts[0], texts[1])
	}
}
