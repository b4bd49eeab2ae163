package idx_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
)

func TestErrFormatIsBadData(t *testing.T) {
	if !errors.Is(idx.ErrFormat, tensorfeed.ErrBadData) {
		t.Fatal("ErrFormat does not wrap tensorfeed.ErrBadData")
	}
	_, err := idx.Decode(bytes.NewReader([]byte("not an IDX file")), "f")
	wantError(t, err, "f", 0, "bad magic", nil)
}

// readers are the ways into an IDX stream through the public API, each
// read to its end. size is the stream's size when the caller knows it.
var readers = []struct {
	name  string
	sized bool // passes InputSize
	read  func(b []byte, name string, opts ...idx.Option) error
}{
	{"Decode", false, func(b []byte, name string, opts ...idx.Option) error {
		_, err := idx.Decode(bytes.NewReader(b), name, opts...)
		return err
	}},
	{"Decode sized", true, func(b []byte, name string, opts ...idx.Option) error {
		_, err := idx.Decode(bytes.NewReader(b), name, append(opts, idx.InputSize(int64(len(b))))...)
		return err
	}},
	{"Check", false, func(b []byte, name string, opts ...idx.Option) error {
		_, err := idx.Check(bytes.NewReader(b), name, opts...)
		return err
	}},
	{"Check sized", true, func(b []byte, name string, opts ...idx.Option) error {
		_, err := idx.Check(bytes.NewReader(b), name, append(opts, idx.InputSize(int64(len(b))))...)
		return err
	}},
	{"Read", false, func(b []byte, name string, opts ...idx.Option) error {
		x, err := idx.NewReader(bytes.NewReader(b), name, opts...)
		if err != nil {
			return err
		}
		// The caller's buffer: tests keep the records small where
		// they reach this.
		dst := make([]float32, x.Header().RecordElems())
		for {
			if err := idx.Read(x, dst); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}},
}

func TestHugeRecordHeader(t *testing.T) {
	const limit = 16 << 20 // what reading a 16-byte file may allocate
	big := []idx.Option{idx.MaxRecordBytes(1 << 40), idx.MaxFileBytes(1 << 40)}
	for _, tt := range []struct {
		name   string
		dims   []uint32
		opts   []idx.Option
		offset int64 // where the error is, when the stream's size is unknown
		msg    string
		cause  error
	}{
		{"64 GiB record", []uint32{1, 1 << 18, 1 << 18}, nil, 12, "MaxRecordBytes", idx.ErrTooLarge},
		{"1 GiB record", []uint32{1, 1 << 15, 1 << 15}, nil, 12, "MaxRecordBytes", idx.ErrTooLarge},
		{"64 GiB of records", []uint32{1 << 20, 256, 256}, nil, 12, "MaxFileBytes", idx.ErrTooLarge},
		{"64 GiB record, raised maximums", []uint32{1, 1 << 18, 1 << 18}, big, 16, "record 0 of 1", io.ErrUnexpectedEOF},
		{"1 GiB record, raised maximums", []uint32{1, 1 << 15, 1 << 15}, big, 16, "record 0 of 1", io.ErrUnexpectedEOF},
		{"many records, raised maximums", []uint32{1 << 20, 256, 256}, big, 16, "record 0 of 1048576", io.ErrUnexpectedEOF},
	} {
		file := badinput.IDXFile(0x08, tt.dims, nil)
		for _, r := range readers {
			if r.name == "Read" && len(tt.opts) > 0 {
				continue // its caller would allocate the record
			}
			t.Run(tt.name+"/"+r.name, func(t *testing.T) {
				var err error
				n := fixture.Allocated(func() { err = r.read(file, "huge.idx", tt.opts...) })
				wantError(t, err, "huge.idx", tt.offset, tt.msg, tt.cause)
				if n > limit {
					t.Errorf("a %d-byte file allocated %d bytes", len(file), n)
				}
			})
		}
		t.Run(tt.name+"/ReadFile", func(t *testing.T) {
			p := fixture.WriteFile(t, t.TempDir(), "huge.idx", file)
			var err error
			n := fixture.Allocated(func() { _, err = idx.ReadFile(p, tt.opts...) })
			wantError(t, err, p, tt.offset, tt.msg, tt.cause)
			if n > limit {
				t.Errorf("a %d-byte file allocated %d bytes", len(file), n)
			}
		})
	}
}

// zeroMembers returns n gzip members of 1 MiB of zeros each: about 1 KiB
// of gzip per MiB of data. Concatenated gzip members are one stream.
func zeroMembers(n int) []byte {
	one := badinput.Gzip(make([]byte, 1<<20))
	return bytes.Repeat(one, n)
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestGzipBomb(t *testing.T) {
	const mib = 1 << 20
	// The header declares records of 1 MiB.
	header := func(records uint32) []byte {
		return badinput.Gzip(badinput.IDXFile(0x08, []uint32{records, 1024, 1024}, nil))
	}
	bomb256 := append(header(256), zeroMembers(256)...) // 256 KiB expanding to 256 MiB

	t.Run("declared size over the maximum", func(t *testing.T) {
		var err error
		n := fixture.Allocated(func() {
			_, err = idx.Decode(bytes.NewReader(bomb256), "bomb.gz", idx.MaxFileBytes(64*mib))
		})
		wantError(t, err, "bomb.gz", 12, "MaxFileBytes", idx.ErrTooLarge)
		if n > 4*mib {
			t.Errorf("allocated %d bytes", n)
		}
	})
	t.Run("default maximum", func(t *testing.T) {
		p := fixture.WriteFile(t, t.TempDir(), "bomb.gz", append(header(4096), zeroMembers(16)...))
		var err error
		n := fixture.Allocated(func() { _, err = idx.ReadFile(p) })
		wantError(t, err, p, 12, "MaxFileBytes", idx.ErrTooLarge)
		if n > 4*mib {
			t.Errorf("allocated %d bytes", n)
		}
	})
	t.Run("memory grows with the data that arrives", func(t *testing.T) {
		// 256 MiB declared, 24 MiB there.
		short := append(header(256), zeroMembers(24)...)
		var err error
		n := fixture.Allocated(func() { _, err = idx.Decode(bytes.NewReader(short), "short.gz") })
		fe := wantError(t, err, "short.gz", 16+24*mib, "record 24 of 256", io.ErrUnexpectedEOF)
		if fe.Record != 24 {
			t.Errorf("record %d, want 24", fe.Record)
		}
		if n > 4*24*mib {
			t.Errorf("24 MiB of data allocated %d bytes", n)
		}
	})
	t.Run("streaming holds one record", func(t *testing.T) {
		file := append(header(32), zeroMembers(32)...)
		dst := make([]uint8, mib)
		var info idx.Info
		var err error
		n := fixture.Allocated(func() {
			info, err = idx.Check(bytes.NewReader(file), "ok.gz")
			if err != nil {
				return
			}
			var x *idx.Reader
			if x, err = idx.NewReader(bytes.NewReader(file), "ok.gz"); err != nil {
				return
			}
			for err == nil {
				err = idx.Read(x, dst)
			}
			if err == io.EOF {
				err = nil
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if info.Records != 32 || info.Bytes != 16+32*mib || !info.Gzipped {
			t.Errorf("info %+v", info)
		}
		if n > 4*mib {
			t.Errorf("streaming 32 MiB allocated %d bytes", n)
		}
	})
	t.Run("long tail after the last record", func(t *testing.T) {
		// One record of 1 KiB, then 1 GiB of zeros in 1 MiB of gzip.
		file := append(badinput.Gzip(badinput.IDXFile(0x08, []uint32{1, 1024}, make([]byte, 1024))), zeroMembers(1024)...)
		cr := &countingReader{r: bytes.NewReader(file)}
		_, err := idx.Decode(cr, "tail.gz")
		fe := wantError(t, err, "tail.gz", 12+1024, "after the last record", nil)
		if fe.Record != -1 {
			t.Errorf("record %d, want -1", fe.Record)
		}
		if cr.n > int64(len(file))/4 {
			t.Errorf("read %d of %d gzip bytes to find data after the last record", cr.n, len(file))
		}
	})
}

func TestZeroSizeRecords(t *testing.T) {
	for _, tt := range []struct {
		name   string
		dims   []uint32
		offset int64
		msg    string
	}{
		{"4 billion empty records", []uint32{1<<32 - 1, 0}, 8, "dimension 1 is 0, so none of the 4294967295 records"},
		{"zero last dimension", []uint32{1<<32 - 1, 28, 0}, 12, "dimension 2 is 0"},
		{"zero middle dimension", []uint32{5, 0, 1<<32 - 1}, 8, "dimension 1 is 0"},
	} {
		file := badinput.IDXFile(0x08, tt.dims, nil)
		for _, r := range readers {
			t.Run(tt.name+"/"+r.name, func(t *testing.T) {
				wantError(t, r.read(file, "zero.idx"), "zero.idx", tt.offset, tt.msg, nil)
			})
		}
	}
	// No records at all is an empty file, whatever the record's shape.
	for _, dims := range [][]uint32{{0, 28, 28}, {0, 0}, {0}} {
		for _, r := range readers {
			if err := r.read(badinput.IDXFile(0x08, dims, nil), "empty.idx"); err != nil {
				t.Errorf("%s of %v: %v", r.name, dims, err)
			}
		}
	}
}

func TestTruncatedEverywhere(t *testing.T) {
	// 3 records of 2x2 int16: magic, 3 sizes, then 24 bytes of data.
	data := make([]byte, 24)
	for i := range data {
		data[i] = byte(i + 1)
	}
	file := badinput.IDXFile(0x0B, []uint32{3, 2, 2}, data)
	dir := t.TempDir()
	for l := range len(file) {
		cut := file[:l]
		rec, what := -1, "file ends in the header"
		switch {
		case l == 0:
			what = "empty file"
		case l >= 4 && l < 16:
			what = fmt.Sprintf("file ends in the size of dimension %d", (l-4)/4)
		case l >= 16:
			rec = (l - 16) / 8
			what = fmt.Sprintf("file ends in record %d of 3", rec)
		}
		check := func(t *testing.T, err error, name string) {
			t.Helper()
			fe := wantError(t, err, name, int64(l), what, io.ErrUnexpectedEOF)
			if fe.Record != int64(rec) {
				t.Errorf("cut at %d: record %d, want %d", l, fe.Record, rec)
			}
		}
		for _, r := range readers {
			check(t, r.read(cut, "cut.idx"), "cut.idx")
			if !r.sized {
				check(t, r.read(badinput.Gzip(cut), "cut.idx"), "cut.idx")
			}
		}
		p := filepath.Join(dir, "cut.idx")
		fixture.WriteFile(t, dir, "cut.idx", cut)
		_, err := idx.ReadFile(p)
		check(t, err, p)
		_, err = idx.CheckFile(p)
		check(t, err, p)
	}
}

func TestLimitsKeepValidFiles(t *testing.T) {
	// The limits refuse what is over them, and nothing at them.
	file := badinput.IDXFile(0x0C, []uint32{4, 3}, make([]byte, 48)) // records of 12 bytes, 48 in all
	for _, r := range readers {
		if err := r.read(file, "f", idx.MaxRecordBytes(12), idx.MaxFileBytes(48)); err != nil {
			t.Errorf("%s at the limits: %v", r.name, err)
		}
		err := r.read(file, "f", idx.MaxRecordBytes(11))
		wantError(t, err, "f", 8, "records of more than 11 bytes", idx.ErrTooLarge)
		err = r.read(file, "f", idx.MaxFileBytes(47))
		wantError(t, err, "f", 8, "more than 47 bytes of data", idx.ErrTooLarge)
	}
	// A size that does not match the data is found before any is read.
	_, err := idx.Decode(bytes.NewReader(file), "f", idx.InputSize(int64(len(file)+5)))
	wantError(t, err, "f", int64(len(file)), "5 bytes after the last record", nil)
	// The size of a gzip stream says nothing about its data.
	if _, err := idx.Decode(bytes.NewReader(badinput.Gzip(file)), "f", idx.InputSize(3)); err != nil {
		t.Errorf("gzip with its compressed size: %v", err)
	}
}

func TestGzipHeaderError(t *testing.T) {
	_, err := gzip.NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 9}))
	if err == nil {
		t.Fatal("no error from gzip")
	}
	for _, r := range readers {
		wantError(t, r.read([]byte{0x1f, 0x8b, 9}, "z"), "z", 0, "bad gzip header", nil)
	}
}
