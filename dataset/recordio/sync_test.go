package recordio_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// nextStart returns the first of the sorted offsets that is >= off, or -1.
func nextStart(offsets []int64, off int64) int64 {
	for _, o := range offsets {
		if o >= off {
			return o
		}
	}
	return -1
}

func checkSync(t *testing.T, name string, file []byte, offsets []int64, off int64) {
	t.Helper()
	got, err := recordio.Sync(bytes.NewReader(file), off)
	want := nextStart(offsets, off)
	if want < 0 {
		if err != io.EOF || got != -1 {
			t.Errorf("%s: Sync(%d) = %d, %v; want -1, io.EOF", name, off, got, err)
		}
		return
	}
	if err != nil || got != want {
		t.Errorf("%s: Sync(%d) = %d, %v; want %d", name, off, got, err, want)
	}
}

// From every byte offset of the edge-case file, Sync finds the next record
// start and passes over continuation parts (cflag 2 and 3).
func TestSyncEdgeCases(t *testing.T) {
	file := mustRead(t, recPath("multipart_edge_cases"))
	_, offsets := readAll(t, "edge", file)
	for off := int64(-3); off <= int64(len(file))+5; off++ {
		checkSync(t, "edge", file, offsets, off)
	}
}

func TestSyncTestdata(t *testing.T) {
	for _, name := range tsvFiles {
		file := mustRead(t, recPath(name))
		_, offsets := readAll(t, name, file)
		for off := int64(0); off < int64(len(file)); off += 997 {
			checkSync(t, name, file, offsets, off)
		}
	}
}

// A record start whose magic is the last word of Sync's read buffer (64 KiB)
// and whose length word is in the next one is still found.
func TestSyncAcrossChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	for b.Len() < 200<<10 {
		if err := w.Write(payloadWithMagics(r, r.IntN(40))); err != nil {
			t.Fatal(err)
		}
	}
	file := b.Bytes()
	_, offsets := readAll(t, "small", file)
	hit := false
	for _, o := range offsets {
		hit = hit || o%(64<<10) == 64<<10-4
	}
	if !hit {
		t.Fatal("no record starts in the last word of a chunk; change the seed")
	}
	for _, c := range []int64{64 << 10, 128 << 10, 192 << 10} {
		for off := c - 64; off < c+64; off++ {
			checkSync(t, "small", file, offsets, off)
		}
	}
}

type errReaderAt struct{}

func (errReaderAt) ReadAt([]byte, int64) (int, error) { return 0, errors.New("bad sector") }

func TestSyncReadError(t *testing.T) {
	if _, err := recordio.Sync(errReaderAt{}, 0); err == nil || err == io.EOF {
		t.Errorf("Sync over a failing reader: %v, want its error", err)
	}
}

// After damage, Sync finds the next good record and reading goes on: one
// record with a broken magic word costs that record only.
func TestSyncRecovery(t *testing.T) {
	name := "mnist_t10k_1000_jpg"
	file := bytes.Clone(mustRead(t, recPath(name)))
	rows := readTSV(t, name)
	file[rows[500].offset] ^= 0xff // break record 500's magic
	r := bytes.NewReader(file)
	var good []int64
	var from int64
	for {
		if _, err := r.Seek(from, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		rd := recordio.NewReader(r, "")
		recordio.SetBase(rd, from)
		var err error
		for {
			if _, err = rd.Next(); err != nil {
				break
			}
			good = append(good, rd.Offset())
		}
		if err == io.EOF {
			break
		}
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || fe.Offset != rows[500].offset {
			t.Fatalf("error %v, want a tensorfeed.Error at record 500", err)
		}
		if from, err = recordio.Sync(r, fe.Offset+1); err != nil {
			t.Fatal(err)
		}
	}
	if len(good) != 999 || good[499] != rows[499].offset || good[500] != rows[501].offset {
		t.Errorf("%d good records, want 999 with record 500 skipped", len(good))
	}
}
