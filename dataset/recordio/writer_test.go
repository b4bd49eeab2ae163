package recordio_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/testkit/race"
)

var magic = []byte{0x0a, 0x23, 0xd7, 0xce}

// payloadWithMagics returns n random bytes with the magic word planted at
// some aligned and unaligned offsets.
func payloadWithMagics(r *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.IntN(256))
	}
	for k := r.IntN(4); k > 0 && n >= 4; k-- {
		at := r.IntN(n - 3)
		if r.IntN(3) > 0 {
			at &^= 3
		}
		copy(p[at:], magic)
	}
	return p
}

func TestWriterRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var payloads [][]byte
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 12, 13, 100, 4096} {
		for range 20 {
			payloads = append(payloads, payloadWithMagics(r, n))
		}
	}
	payloads = append(payloads, bytes.Repeat(magic, 50), append(bytes.Repeat(magic, 3), 1))
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	var offs []int64
	for _, p := range payloads {
		offs = append(offs, w.Tell())
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if recordio.Splits(w) == 0 {
		t.Fatal("no payload was split: the test does not exercise splitting")
	}
	if b.Len()%4 != 0 || w.Tell() != int64(b.Len()) {
		t.Fatalf("file of %d bytes, Tell %d", b.Len(), w.Tell())
	}
	got, gotOffs := readAll(t, "roundtrip", b.Bytes())
	if len(got) != len(payloads) {
		t.Fatalf("%d records, want %d", len(got), len(payloads))
	}
	for i := range payloads {
		if !bytes.Equal(got[i], payloads[i]) || gotOffs[i] != offs[i] {
			t.Errorf("record %d: %x at %d, want %x at %d", i, got[i], gotOffs[i], payloads[i], offs[i])
		}
	}
	// No aligned magic word may be left inside the data, else Sync would
	// find a record start where there is none.
	file := b.Bytes()
	starts := map[int64]bool{}
	for _, o := range offs {
		for _, p := range rawParts(t, file, o) {
			starts[o] = true
			o += 8 + int64((p.length+3)&^3)
		}
	}
	for i := 0; i+4 <= len(file); i += 4 {
		if bytes.Equal(file[i:i+4], magic) && !starts[int64(i)] && binary.LittleEndian.Uint32(file[i+4:])>>29 < 2 {
			t.Errorf("aligned magic with a start flag at %d is no record start", i)
		}
	}
}

func TestWriterTooLarge(t *testing.T) {
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	err := w.Write(make([]byte, recordio.MaxRecordSize+1))
	if !errors.Is(err, recordio.ErrTooLarge) || b.Len() != 0 || w.Tell() != 0 {
		t.Errorf("Write of 2^29 bytes: %v, wrote %d; want ErrTooLarge and nothing written", err, b.Len())
	}
	if err := w.Write([]byte("ok")); err != nil {
		t.Errorf("a too large record must not break the writer: %v", err)
	}
}

// countWriter counts bytes and keeps the first few.
type countWriter struct {
	n    int64
	head []byte
}

func (c *countWriter) Write(p []byte) (int, error) {
	if len(c.head) < 16 {
		c.head = append(c.head, p[:min(len(p), 16-len(c.head))]...)
	}
	c.n += int64(len(p))
	return len(p), nil
}

// The largest legal record, 2^29-1 bytes, is written and read back.
func TestLargestRecord(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("allocates 1 GiB")
	}
	p := make([]byte, recordio.MaxRecordSize)
	copy(p[len(p)-8:], "the end!")
	var cw countWriter
	w := recordio.NewWriter(&cw)
	if err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	if cw.n != 8+1<<29 || w.Tell() != cw.n {
		t.Fatalf("wrote %d bytes, Tell %d, want %d", cw.n, w.Tell(), 8+1<<29)
	}
	if lrec := binary.LittleEndian.Uint32(cw.head[4:]); lrec != 1<<29-1 {
		t.Fatalf("length word %#x, want %#x", lrec, 1<<29-1)
	}
	// Read it back from a stream that makes the file without storing it.
	hdr := frame(rawPart{data: nil, length: recordio.MaxRecordSize, noPad: true})
	in := io.MultiReader(bytes.NewReader(hdr), bytes.NewReader(p), bytes.NewReader([]byte{0}))
	got, err := recordio.NewReader(in, "").Next()
	if err != nil || len(got) != recordio.MaxRecordSize || string(got[len(got)-8:]) != "the end!" {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
}

// A split record whose joined length passes the limit is a format error.
func TestReaderJoinedTooLarge(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("allocates 512 MiB")
	}
	big := make([]byte, recordio.MaxRecordSize-5)
	in := io.MultiReader(
		bytes.NewReader(frame(rawPart{cflag: 1, length: len(big), noPad: true})),
		bytes.NewReader(big),
		bytes.NewReader(frame(rawPart{cflag: 3, data: []byte("abcd")})),
	)
	_, err := recordio.NewReader(in, "").Next()
	if !errors.Is(err, recordio.ErrFormat) {
		t.Fatalf("error %v, want ErrFormat", err)
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriterErrorIsSticky(t *testing.T) {
	w := recordio.NewWriter(&failWriter{after: 1})
	if err := w.Write([]byte("one")); err != nil {
		t.Fatal(err)
	}
	err := w.Write([]byte("two"))
	if err == nil || w.Write([]byte("three")) != err {
		t.Errorf("errors %v; want the same error on every later Write", err)
	}
	if w.Tell() != 12 {
		t.Errorf("Tell %d, want 12", w.Tell())
	}
}

// Large payloads are written part by part without a copy; the parts are cut
// at the aligned magic words, and only there.
func TestWriterLargePayload(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := payloadWithMagics(r, 3<<20+3)
	copy(p[1<<20:], magic)
	copy(p[2<<20+8:], magic)
	copy(p[2<<20+13:], magic)
	var b bytes.Buffer
	if err := recordio.NewWriter(&b).Write(p); err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(t, "large", b.Bytes())
	if len(got) != 1 || !bytes.Equal(got[0], p) {
		t.Fatal("large record does not read back")
	}
	var want []int // part lengths expected from the aligned magics
	last := 0
	for i := 0; i+4 <= len(p); i += 4 {
		if bytes.Equal(p[i:i+4], magic) {
			want = append(want, i-last)
			last = i + 4
		}
	}
	want = append(want, len(p)-last)
	parts := rawParts(t, b.Bytes(), 0)
	if len(parts) != len(want) || len(want) < 3 {
		t.Fatalf("%d parts, want %d (at least 3)", len(parts), len(want))
	}
	for i, pt := range parts {
		if pt.length != want[i] {
			t.Errorf("part %d: length %d, want %d", i, pt.length, want[i])
		}
	}
	if b.Len() != 8*len(want)+len(p)-4*(len(want)-1)+1 {
		t.Errorf("file of %d bytes, want %d", b.Len(), 8*len(want)+len(p)-4*(len(want)-1)+1)
	}
}
