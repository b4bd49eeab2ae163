package tfrecord_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// The masked CRC32C against values computed independently from the
// TFRecord spec (a bitwise CRC-32C, polynomial 0x82f63b78).
func TestMaskedCRC(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
	}{
		{"", 0xa282ead8},          // crc32c("") = 0
		{"123456789", 0xc78ab0e5}, // crc32c = 0xe3069283, the CRC-32C check value
		{"hello", 0x191c1fbb},
	} {
		if got := tfrecord.MaskedCRC([]byte(c.in)); got != c.want {
			t.Errorf("MaskedCRC(%q) = 0x%08x, want 0x%08x", c.in, got, c.want)
		}
	}
}

// Records built byte by byte from the spec: the writer must produce exactly
// these bytes and the reader must read them.
func TestSpecBytes(t *testing.T) {
	spec := slices.Concat(
		[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0x29, 0x03, 0x98, 0x07, 0xd8, 0xea, 0x82, 0xa2}, // ""
		[]byte{5, 0, 0, 0, 0, 0, 0, 0, 0xea, 0xb2, 0x04, 0x3e},                         // length 5
		[]byte("hello"), []byte{0xbb, 0x1f, 0x1c, 0x19},
	)
	if got := encode(t, [][]byte{{}, []byte("hello")}, false); !bytes.Equal(got, spec) {
		t.Fatalf("writer wrote\n% x\nwant\n% x", got, spec)
	}
	data, _, err := readAll(tfrecord.Open(writeFile(t, spec)))
	if err != nil || len(data) != 2 || len(data[0]) != 0 || string(data[1]) != "hello" {
		t.Fatalf("read %q, %v", data, err)
	}
}

func TestRoundTrip(t *testing.T) {
	want := sampleRecords()
	for _, gz := range []bool{false, true} {
		for _, reuse := range []bool{false, true} {
			var opts []tfrecord.Option
			if reuse {
				opts = append(opts, tfrecord.ReuseBuffer())
			}
			file := encode(t, want, gz)
			if gz != (file[0] == 0x1f && file[1] == 0x8b) {
				t.Fatalf("gzip %v: file starts % x", gz, file[:2])
			}
			path := writeFile(t, file)
			got, recs, err := readAll(tfrecord.Open(path, opts...))
			if err != nil {
				t.Fatalf("gzip %v reuse %v: %v", gz, reuse, err)
			}
			if len(got) != len(want) {
				t.Fatalf("gzip %v reuse %v: %d records, want %d", gz, reuse, len(got), len(want))
			}
			var off int64
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("gzip %v reuse %v: record %d differs", gz, reuse, i)
				}
				if recs[i].Index != int64(i) || recs[i].Offset != off || recs[i].File != path {
					t.Errorf("record %d: %+v, want index %d offset %d", i, recs[i], i, off)
				}
				off += int64(16 + len(want[i]))
			}
		}
	}
}

func TestEmptyFile(t *testing.T) {
	got, _, err := readAll(tfrecord.Open(writeFile(t, nil)))
	if err != nil || len(got) != 0 {
		t.Fatalf("empty file: %d records, %v", len(got), err)
	}
}

func TestSourcetest(t *testing.T) {
	for _, gz := range []bool{false, true} {
		path := writeFile(t, encode(t, sampleRecords(), gz))
		if err := sourcetest.TestReader[tfrecord.Record](tfrecord.Open(path)); err != nil {
			t.Fatalf("gzip %v: %v", gz, err)
		}
	}
	if err := sourcetest.TestReader[tfrecord.Record](tfrecord.Open("/nonexistent/x.tfrecord")); err != nil {
		t.Fatal(err)
	}
}

// checkBad checks that err is a positioned bad-data error about path.
func checkBad(t *testing.T, err error, path string, record, offset int64, also ...error) *tensorfeed.Error {
	t.Helper()
	var fe *tensorfeed.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *tensorfeed.Error", err, err)
	}
	if !errors.Is(err, tfrecord.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Errorf("%v: does not wrap ErrFormat and ErrBadData", err)
	}
	for _, e := range also {
		if !errors.Is(err, e) {
			t.Errorf("%v: does not wrap %v", err, e)
		}
	}
	if fe.Path != path {
		t.Errorf("%v: Path %q, want %q", err, fe.Path, path)
	}
	if record >= 0 && (fe.Record != record || fe.Offset != offset) {
		t.Errorf("%v: record %d offset %d, want record %d offset %d", err, fe.Record, fe.Offset, record, offset)
	}
	return fe
}

func TestTruncatedEveryByte(t *testing.T) {
	recs := [][]byte{[]byte("ab"), {}, []byte("cdefg")}
	for _, gz := range []bool{false, true} {
		file := encode(t, recs, gz)
		path := writeFile(t, nil)
		for n := 1; n < len(file); n++ {
			if !gz && (n == 18 || n == 34) {
				continue // a record boundary: a shorter valid file
			}
			if err := os.WriteFile(path, file[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := readAll(tfrecord.Open(path))
			if err == nil {
				t.Fatalf("gzip %v: %d of %d bytes read without error", gz, n, len(file))
			}
			checkBad(t, err, path, -1, 0, io.ErrUnexpectedEOF)
		}
	}
}

// corrupt returns three records with byte i of record 1 (offset 17) flipped.
func corrupt(t *testing.T, i int) ([]byte, string) {
	file := encode(t, [][]byte{[]byte("a"), []byte("bbbb"), []byte("c")}, false)
	file[17+i] ^= 0x40
	return file, writeFile(t, file)
}

func TestBadLengthCRC(t *testing.T) {
	_, path := corrupt(t, 9) // the length's CRC
	got, _, err := readAll(tfrecord.Open(path, tfrecord.OnBad(source.SkipBad(1))))
	checkBad(t, err, path, 1, 17)
	if len(got) != 1 {
		t.Errorf("%d records before the error, want 1", len(got))
	}
	_, path = corrupt(t, 0) // the length itself
	_, _, err = readAll(tfrecord.Open(path, tfrecord.OnBad(source.SkipBad(1))))
	checkBad(t, err, path, 1, 17)
}

func TestBadDataCRC(t *testing.T) {
	for _, at := range []int{12, 16} { // a data byte, the data's CRC
		_, path := corrupt(t, at)
		_, _, err := readAll(tfrecord.Open(path))
		checkBad(t, err, path, 1, 17, tfrecord.ErrDataChecksum)

		skip := source.SkipBad(0.5)
		r := tfrecord.Open(path, tfrecord.OnBad(skip))
		got, recs, err := readAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || string(got[0]) != "a" || string(got[1]) != "c" || recs[1].Index != 2 || recs[1].Offset != 37 {
			t.Errorf("skipping: read %q %+v", got, recs)
		}
		if sc, ok := r.(source.SkipCounted); !ok || sc.Skipped() != 1 || skip.Skipped() != 1 {
			t.Errorf("Skipped() = %d (reader: %v), want 1", skip.Skipped(), ok)
		}
		_, _, err = readAll(tfrecord.Open(path, tfrecord.OnBad(source.SkipBad(0.1))))
		if !errors.Is(err, source.ErrTooManyBad) {
			t.Errorf("SkipBad(0.1) over 1 bad of 3: %v, want ErrTooManyBad", err)
		}
	}
}

// header returns a record header claiming n bytes, with a correct CRC.
func header(n uint64) []byte {
	h := binary.LittleEndian.AppendUint64(nil, n)
	return binary.LittleEndian.AppendUint32(h, tfrecord.MaskedCRC(h))
}

func gzipped(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLengthPastEOF(t *testing.T) {
	file := append(encode(t, [][]byte{[]byte("ok")}, false), header(100)...)
	file = append(file, "short"...)
	path := writeFile(t, file)
	_, _, err := readAll(tfrecord.Open(path))
	checkBad(t, err, path, 1, 18, io.ErrUnexpectedEOF)
}

// A file cut inside a record's data CRC: the error counts the 4 CRC bytes
// in what the record needs, and says what is left, whether the file's size
// is known (Open on a local file) or the bytes run out (a Reader without
// Size).
func TestTruncatedInDataCRC(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 83)
	file := encode(t, [][]byte{[]byte("ok"), data}, false)
	file = file[:len(file)-2] // 83 data bytes and 2 of the CRC's 4 are left
	path := writeFile(t, file)
	_, _, err := readAll(tfrecord.Open(path))
	fe := checkBad(t, err, path, 1, 18, io.ErrUnexpectedEOF)
	if want := "length 83 goes past the end of the input: the record needs 87 bytes after its header (the data and a 4-byte CRC), 85 are left"; fe.Err.Error() != "tfrecord: bad format: "+want {
		t.Errorf("sized: %q\nwant %q", fe.Err, want)
	}
	r := tfrecord.NewReader(bytes.NewReader(file), "")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = r.Next()
	var ue *tensorfeed.Error
	if !errors.As(err, &ue) || ue.Err.Error() != "tfrecord: bad format: truncated data checksum: 2 of 4 bytes" || ue.Offset != 18 {
		t.Errorf("unsized: %v", err)
	}
}

// A header claiming 1 TiB in a tiny file allocates almost nothing, whether
// the maximum or the file's size or the arriving bytes stop it.
func TestHugeLength(t *testing.T) {
	plain := append(header(1<<40), "tiny"...)
	cases := []struct {
		name string
		file []byte
		opts []tfrecord.Option
		want error
	}{
		{"over the maximum", plain, nil, tfrecord.ErrTooLarge},
		{"past the end", plain, []tfrecord.Option{tfrecord.MaxRecordBytes(1 << 50)}, io.ErrUnexpectedEOF},
		{"gzip, over the maximum", gzipped(t, plain), nil, tfrecord.ErrTooLarge},
		{"gzip, past the end", gzipped(t, plain), []tfrecord.Option{tfrecord.MaxRecordBytes(1 << 50)}, io.ErrUnexpectedEOF},
	}
	for _, c := range cases {
		path := writeFile(t, c.file)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := readAll(tfrecord.Open(path, c.opts...))
		runtime.ReadMemStats(&after)
		checkBad(t, err, path, 0, 0, c.want)
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%s: allocated %d bytes, want < 1 MiB", c.name, got)
		}
	}
}

func TestBadGzip(t *testing.T) {
	good := encode(t, sampleRecords(), true)
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-8] ^= 1 // the gzip trailer's CRC-32
	badData := bytes.Clone(good)
	for i := 20; i < 40; i++ {
		badData[i] = 0xff
	}
	badHeader := bytes.Clone(good)
	badHeader[2] = 9 // not deflate
	for _, c := range []struct {
		name string
		file []byte
		opts []tfrecord.Option
		also []error
	}{
		{"trailer checksum", badCRC, nil, []error{gzip.ErrChecksum}},
		{"deflate data", badData, nil, nil},
		{"header, detected as plain", badHeader, nil, nil},
	} {
		path := writeFile(t, c.file)
		_, _, err := readAll(tfrecord.Open(path, c.opts...))
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		checkBad(t, err, path, -1, 0, c.also...)
	}
}

// The pull Reader keeps returning a structural error, and goes on after a
// data checksum error.
func TestReaderSticky(t *testing.T) {
	file, _ := corrupt(t, 12)
	r := tfrecord.NewReader(bytes.NewReader(file), "")
	var got []string
	var errs int
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs++
			if !errors.Is(err, tfrecord.ErrDataChecksum) || r.Index() != 1 || r.Offset() != 17 {
				t.Fatalf("error %v at index %d offset %d", err, r.Index(), r.Offset())
			}
			continue
		}
		got = append(got, string(b))
	}
	if errs != 1 || !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("got %q and %d errors", got, errs)
	}
	file, _ = corrupt(t, 9)
	r = tfrecord.NewReader(bytes.NewReader(file), "")
	_, _ = r.Next()
	_, err1 := r.Next()
	_, err2 := r.Next()
	if err1 == nil || err1 != err2 {
		t.Fatalf("errors %v then %v, want the same", err1, err2)
	}
}

func TestWriterAfterClose(t *testing.T) {
	w := tfrecord.NewWriter(io.Discard)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("x")); err == nil {
		t.Fatal("Write after Close: no error")
	}
}

// Flush makes the records written so far readable, through gzip too.
func TestWriterFlush(t *testing.T) {
	for _, gz := range []bool{false, true} {
		var buf bytes.Buffer
		var opts []tfrecord.WriterOption
		if gz {
			opts = append(opts, tfrecord.GzipLevel(gzip.BestSpeed))
		}
		w := tfrecord.NewWriter(&buf, opts...)
		if err := w.Write([]byte("first")); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		r := tfrecord.NewReader(bytes.NewReader(buf.Bytes()), "")
		if b, err := r.Next(); err != nil || string(b) != "first" {
			t.Fatalf("gzip %v: after Flush read %q, %v", gz, b, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if got, _, err := readAll(tfrecord.Open(writeFile(t, buf.Bytes()))); err != nil || len(got) != 1 {
			t.Fatalf("gzip %v: %d records after Close, %v", gz, len(got), err)
		}
	}
}

// A pass stops at the record after its context is cancelled.
func TestOpenCancel(t *testing.T) {
	recs := make([][]byte, 200)
	for i := range recs {
		recs[i] = []byte{byte(i)}
	}
	path := writeFile(t, encode(t, recs, false))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n, errs int
	var last error
	for _, err := range tfrecord.Open(path).All(ctx) {
		if err != nil {
			errs++
			last = err
			continue
		}
		if n++; n == 5 {
			cancel()
		}
	}
	if n != 5 || errs != 1 || !errors.Is(last, context.Canceled) {
		t.Errorf("%d records, %d errors (%v); want 5 and one context.Canceled", n, errs, last)
	}
}

// A plain file whose first record's length starts with the gzip magic
// (1f 8b 08: a record of 559,903 bytes) is read as plain, as its header's
// CRC says, in a pass and in a resumed one; a gzip file is still read as
// gzip, and a reader told that a plain file is gzip fails at its header.
func TestDetectGzip(t *testing.T) {
	recs := [][]byte{bytes.Repeat([]byte{7}, 0x088b1f), []byte("second")}
	file := encode(t, recs, false)
	if !bytes.HasPrefix(file, []byte{0x1f, 0x8b, 8}) {
		t.Fatalf("the file starts with % x", file[:3])
	}
	for _, gz := range []bool{false, true} {
		path := writeFile(t, encode(t, recs, gz))
		r := tfrecord.Open(path)
		got, _, err := readAll(r)
		if err != nil || len(got) != 2 || !bytes.Equal(got[0], recs[0]) || string(got[1]) != "second" {
			t.Fatalf("gzip %v: %d records, %v", gz, len(got), err)
		}
		st, err := source.StateOf(r, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := source.ResumeFrom(r, st)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, err := readAll(r2); err != nil || len(got) != 1 || string(got[0]) != "second" {
			t.Fatalf("gzip %v: resumed: %d records, %v", gz, len(got), err)
		}
	}
	r := tfrecord.NewReader(bytes.NewReader(encode(t, sampleRecords(), false)), "plain")
	tfrecord.SetGzip(r)
	if _, err := r.Next(); !errors.Is(err, gzip.ErrHeader) || !errors.Is(err, tfrecord.ErrFormat) {
		t.Fatalf("gzip forced on a plain file: %v", err)
	}
}
