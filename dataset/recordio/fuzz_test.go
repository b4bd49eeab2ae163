package recordio_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// addSeeds adds the edge-case file whole and the first records of every
// other test file, plus a few broken framings.
func addSeeds(f *testing.F) {
	for _, name := range allRecFiles {
		b := mustRead(f, recPath(name))
		if len(b) > 4096 {
			_, offsets := readAll(f, name, b)
			b = b[:offsets[3]]
		}
		f.Add(b)
	}
	f.Add(frame(rawPart{cflag: 1, data: []byte("ab")}))
	f.Add(frame(rawPart{cflag: 2, data: []byte("ab")}, rawPart{cflag: 3}))
	f.Add(frame(rawPart{data: []byte("ab"), length: 1<<29 - 1}))
	f.Add([]byte{0x0a, 0x23, 0xd7, 0xce, 0, 0})
}

// FuzzReader feeds arbitrary bytes to the framing reader. It must never
// panic; it returns either records or a FormatError; the random-access
// reader agrees with it record for record; and what it read, written again,
// reads back the same.
func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := recordio.NewReader(bytes.NewReader(data), "")
		rr := recordio.NewRandomReader("", bytes.NewReader(data), int64(len(data)), nil)
		var payloads [][]byte
		var readErr error
		for {
			p, err := rd.Next()
			if err != nil {
				if err != io.EOF {
					readErr = err
				}
				break
			}
			at, err := rr.AppendAt(nil, rd.Offset())
			if err != nil || !bytes.Equal(at, p) {
				t.Fatalf("At(%d) = %x, %v; sequential reader gave %x", rd.Offset(), at, err, p)
			}
			payloads = append(payloads, p)
		}
		if readErr != nil {
			var fe *tensorfeed.Error
			if !errors.As(readErr, &fe) || !errors.Is(readErr, recordio.ErrFormat) {
				t.Fatalf("error %v is not a tensorfeed.Error", readErr)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) || fe.Record != int64(len(payloads)) {
				t.Fatalf("error offset %d (record %d) out of place in %d bytes after %d records", fe.Offset, fe.Record, len(data), len(payloads))
			}
			return
		}
		var b bytes.Buffer
		w := recordio.NewWriter(&b)
		for _, p := range payloads {
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		again, _ := readAll(t, "rewritten", b.Bytes())
		if len(again) != len(payloads) {
			t.Fatalf("re-written: %d records, want %d", len(again), len(payloads))
		}
		for i := range payloads {
			if !bytes.Equal(again[i], payloads[i]) {
				t.Fatalf("re-written record %d = %x, want %x", i, again[i], payloads[i])
			}
		}
	})
}

// FuzzWriter cuts arbitrary bytes into payloads, writes them and checks that
// they read back, and that Sync finds every record start from any offset
// inside the record before it.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("hello"), byte(3))
	f.Add(bytes.Repeat(magic, 9), byte(5))
	f.Add(append([]byte("abcd"), magic...), byte(8))
	for _, name := range allRecFiles {
		b := mustRead(f, recPath(name))
		f.Add(b[:min(len(b), 2048)], byte(200))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut byte) {
		var payloads [][]byte
		step := int(cut) + 1
		for len(data) > 0 {
			n := min(step, len(data))
			payloads = append(payloads, data[:n])
			data = data[n:]
			step = step*7%251 + 1
		}
		payloads = append(payloads, nil)
		var b bytes.Buffer
		w := recordio.NewWriter(&b)
		offsets := make([]int64, 0, len(payloads))
		for _, p := range payloads {
			offsets = append(offsets, w.Tell())
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		file := b.Bytes()
		got, gotOff := readAll(t, "fuzz", file)
		if len(got) != len(payloads) {
			t.Fatalf("%d records, want %d", len(got), len(payloads))
		}
		for i := range payloads {
			if !bytes.Equal(got[i], payloads[i]) || gotOff[i] != offsets[i] {
				t.Fatalf("record %d = %x at %d, want %x at %d", i, got[i], gotOff[i], payloads[i], offsets[i])
			}
			from := int64(0)
			if i > 0 {
				from = offsets[i-1] + 1
			}
			if s, err := recordio.Sync(bytes.NewReader(file), from); err != nil || s != offsets[i] {
				t.Fatalf("Sync(%d) = %d, %v; want %d", from, s, err, offsets[i])
			}
		}
	})
}

// FuzzParseIndex feeds arbitrary bytes to the .idx parser and validates what
// it accepts against the edge-case .rec. Neither may panic; every error is a
// *tensorfeed.Error wrapping ErrFormat and tensorfeed.ErrBadData that names the
// index; an accepted index writes back to lines that parse to the same
// entries; ValidateIndex accepts only an index whose records a RandomReader
// reads, one record per entry.
func FuzzParseIndex(f *testing.F) {
	for _, name := range allRecFiles {
		b := mustRead(f, idxPath(name))
		f.Add(b[:min(len(b), 512)])
	}
	f.Add([]byte("0\t0\n1\t16\n1\t24\n"))
	f.Add([]byte("0 0\r\n\n 1\t16 \n"))
	f.Add([]byte("0\t-4\n"))
	f.Add([]byte("9223372036854775807\t99999999999999999999\n"))
	f.Add([]byte("0\t0\t0\n"))
	rec := mustRead(f, recPath("multipart_edge_cases"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := recordio.ParseIndex(bytes.NewReader(data), "fuzz.idx")
		if err != nil {
			var fe *tensorfeed.Error
			if !errors.As(err, &fe) || !errors.Is(err, recordio.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("error %v is not a tensorfeed.Error wrapping ErrFormat and ErrBadData", err)
			}
			if !strings.Contains(err.Error(), "fuzz.idx") {
				t.Fatalf("error %q does not name the index", err)
			}
			return
		}
		var out bytes.Buffer
		if _, err := recordio.WriteIndex(ix, &out); err != nil {
			t.Fatal(err)
		}
		again, err := recordio.ParseIndex(&out, "again.idx")
		if err != nil || !slices.Equal(entries(again), entries(ix)) {
			t.Fatalf("written back: %v, %v; want %v", entries(again), err, entries(ix))
		}
		err = recordio.ValidateIndex(bytes.NewReader(rec), int64(len(rec)), "edge.rec", ix)
		if err != nil {
			if !errors.Is(err, recordio.ErrFormat) || !strings.Contains(err.Error(), "fuzz.idx") {
				t.Fatalf("ValidateIndex: %v", err)
			}
			return
		}
		rr := recordio.NewRandomReader("", bytes.NewReader(rec), int64(len(rec)), ix)
		for i := range ix.Len() {
			if _, err := rr.AppendAt(nil, ix.Entry(i).Offset); err != nil {
				t.Fatalf("valid index, but entry %d does not read: %v", i, err)
			}
		}
	})
}
