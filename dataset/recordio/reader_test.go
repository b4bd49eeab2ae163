package recordio_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

func TestReaderBadInput(t *testing.T) {
	good := frame(rawPart{cflag: 0, data: []byte("abcde")}) // 16 bytes
	cases := []struct {
		name      string
		in        []byte
		records   int    // good records before the error
		offset    int64  // byte offset of the part at fault, named in the message when it is not the record's first
		record    int64  // tensorfeed.Error.Offset: the record's first part
		msg       string // part of the message
		truncated bool   // wraps io.ErrUnexpectedEOF
	}{
		{"truncated header", append(good, 0x0a, 0x23, 0xd7), 1, 16, 16, "truncated part header: 3 of 8", true},
		{"wrong magic", append(good, frame(rawPart{data: []byte("xy")})[1:]...), 1, 16, 16, "bad magic", false},
		{"wrong magic first", []byte("GIF89a\x00\x00\x00\x00\x00\x00"), 0, 0, 0, "bad magic 0x38464947", false},
		{"length past end", append(good, frame(rawPart{data: []byte("xy"), length: 100})...), 1, 16, 16,
			"part length 100 (padded 100) goes past the end of the input: 4 bytes left", true},
		{"padding missing", frame(rawPart{data: []byte("xyz"), noPad: true}), 0, 0, 0, "padded 4", true},
		{"continuation without start", append(good, frame(rawPart{cflag: 2, data: []byte("ab")})...), 1, 16, 16,
			"continuation part (flag 2) without a first part", false},
		{"last without start", frame(rawPart{cflag: 3, data: []byte("ab")}), 0, 0, 0,
			"continuation part (flag 3) without a first part", false},
		{"start without end at EOF", append(good, frame(rawPart{cflag: 1, data: []byte("ab")})...), 1, 28, 16,
			"input ends inside a split record", true},
		{"start then new record", append(good, frame(rawPart{cflag: 1, data: []byte("ab")}, rawPart{cflag: 0})...), 1, 28, 16,
			"split record has no last part", false},
		{"start then start", frame(rawPart{cflag: 1}, rawPart{cflag: 2}, rawPart{cflag: 1}), 0, 16, 0,
			"split record has no last part", false},
		{"bad flag", append(good, frame(rawPart{cflag: 5, data: []byte("ab")})...), 1, 16, 16, "bad continuation flag 5", false},
		{"huge length, tiny file", frame(rawPart{data: []byte("ab"), length: 1<<29 - 1}), 0, 0, 0, "goes past the end", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rd := recordio.NewReader(bytes.NewReader(c.in), "bad.rec")
			n := 0
			var err error
			for {
				if _, err = rd.Next(); err != nil {
					break
				}
				n++
			}
			if n != c.records {
				t.Errorf("read %d good records, want %d", n, c.records)
			}
			var fe *tensorfeed.Error
			if !errors.As(err, &fe) || !errors.Is(err, recordio.ErrFormat) {
				t.Fatalf("error %v (%T), want a *tensorfeed.Error wrapping ErrFormat", err, err)
			}
			if fe.Path != "bad.rec" || fe.Offset != c.record || fe.Record != int64(c.records) {
				t.Errorf("error at %s offset %d record %d, want bad.rec %d %d", fe.Path, fe.Offset, fe.Record, c.record, c.records)
			}
			if part := fmt.Sprintf("part at byte %d:", c.offset); (c.offset != c.record) != strings.Contains(err.Error(), part) {
				t.Errorf("error %q: says %q: %v, want %v", err, part, !(c.offset != c.record), c.offset != c.record)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "bad.rec") {
				t.Errorf("error %q does not say %q and the file name", err, c.msg)
			}
			if got := errors.Is(err, io.ErrUnexpectedEOF); got != c.truncated {
				t.Errorf("errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v", got, c.truncated)
			}
			if _, again := rd.Next(); again != err {
				t.Errorf("second Next returned %v, want the same error", again)
			}
		})
	}
}

func TestReaderEmptyInput(t *testing.T) {
	rd := recordio.NewReader(bytes.NewReader(nil), "")
	if rd.Offset() != -1 {
		t.Errorf("Offset before the first record = %d, want -1", rd.Offset())
	}
	for range 2 {
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("Next on empty input: %v, want io.EOF", err)
		}
	}
}

// An I/O error of the underlying reader is passed on with the offset, and is
// not a format error.
func TestReaderIOError(t *testing.T) {
	boom := errors.New("disk on fire")
	in := io.MultiReader(bytes.NewReader(frame(rawPart{data: []byte("abcd")})), iotest.ErrReader(boom))
	rd := recordio.NewReader(in, "")
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := rd.Next()
	if !errors.Is(err, boom) || errors.Is(err, recordio.ErrFormat) || !strings.Contains(err.Error(), "byte 12") {
		t.Errorf("error %v, want the I/O error at offset 12, not ErrFormat", err)
	}
}

// Small reads from the underlying reader (one byte at a time) change nothing.
func TestReaderOneByteReads(t *testing.T) {
	file := mustRead(t, recPath("multipart_edge_cases"))
	want, wantOff := readAll(t, "whole", file)
	rd := recordio.NewReader(iotest.OneByteReader(bytes.NewReader(file)), "")
	for i := 0; ; i++ {
		p, err := rd.Next()
		if err == io.EOF {
			if i != len(want) {
				t.Fatalf("%d records, want %d", i, len(want))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p, want[i]) || rd.Offset() != wantOff[i] {
			t.Errorf("record %d: %x at %d, want %x at %d", i, p, rd.Offset(), want[i], wantOff[i])
		}
	}
}

func TestReaderReuseBuffer(t *testing.T) {
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	for _, s := range []string{"first record", "second"} {
		if err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	for _, reuse := range []bool{false, true} {
		rd := recordio.NewReader(bytes.NewReader(b.Bytes()), "")
		recordio.SetReuse(rd, reuse)
		p1, _ := rd.Next()
		p2, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if string(p2) != "second" {
			t.Errorf("reuse=%v: second record %q", reuse, p2)
		}
		shared := &p1[0] == &p2[0]
		if shared != reuse {
			t.Errorf("reuse=%v: records share memory: %v", reuse, shared)
		}
		if !reuse && string(p1) != "first record" {
			t.Errorf("first record overwritten: %q", p1)
		}
	}
}

// BaseOffset shifts Offset, InputOffset and error offsets for a reader that
// starts in the middle of a file.
func TestReaderBaseOffset(t *testing.T) {
	file := mustRead(t, recPath("multipart_edge_cases"))
	rd := recordio.NewReader(bytes.NewReader(file[48:]), "")
	recordio.SetBase(rd, 48)
	p, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if rd.Offset() != 48 || recordio.InputOffset(rd) != 92 || len(p) != 25 {
		t.Errorf("Offset %d InputOffset %d len %d, want 48 92 25", rd.Offset(), recordio.InputOffset(rd), len(p))
	}
	rd = recordio.NewReader(bytes.NewReader(file[52:]), "")
	recordio.SetBase(rd, 52)
	_, err = rd.Next()
	var fe *tensorfeed.Error
	if !errors.As(err, &fe) || fe.Offset != 52 || fe.Record != -1 {
		t.Errorf("error %v, want a tensorfeed.Error at offset 52 in a record of unknown index", err)
	}
}

// An empty record comes back as an empty, non-nil slice.
func TestReaderEmptyRecord(t *testing.T) {
	rd := recordio.NewReader(bytes.NewReader(frame(rawPart{})), "")
	p, err := rd.Next()
	if err != nil || p == nil || len(p) != 0 {
		t.Errorf("Next = %v, %v; want an empty slice", p, err)
	}
}
