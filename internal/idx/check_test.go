package idx_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/sample"
)

func TestCheckRealFiles(t *testing.T) {
	dir := t.TempDir()
	images := fixture.WriteFile(t, dir, "t10k-images-idx3-ubyte", gunzipBytes(t, "t10k-images-idx3-ubyte"))
	labels := fixture.WriteFile(t, dir, "t10k-labels-idx1-ubyte", gunzipBytes(t, "t10k-labels-idx1-ubyte"))
	for _, tt := range []struct {
		path   string
		gzip   bool
		dims   []int
		nbytes int64
	}{
		{gz("t10k-images-idx3-ubyte"), true, []int{10000, 28, 28}, 7840016},
		{gz("t10k-labels-idx1-ubyte"), true, []int{10000}, 10008},
		{images, false, []int{10000, 28, 28}, 7840016},
		{labels, false, []int{10000}, 10008},
	} {
		var info idx.Info
		var err error
		n := fixture.Allocated(func() { info, err = idx.CheckFile(tt.path) })
		if err != nil {
			t.Fatal(err)
		}
		if info.DType != sample.Uint8 || !slices.Equal(info.Dims, tt.dims) || info.Records != 10000 ||
			info.Bytes != tt.nbytes || info.Gzipped != tt.gzip {
			t.Errorf("%s: %+v", tt.path, info)
		}
		// 7.8 MB of images in a few buffers of fixed size (and the
		// decompressor's short-lived tables).
		if n > 4<<20 {
			t.Errorf("checking %s allocated %d bytes", tt.path, n)
		}
	}
	if _, err := idx.CheckFile(dir + "/nothing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestCheckBadFiles(t *testing.T) {
	// The first 1,000 test images, a file of its own: 784,016 bytes.
	img := gunzipBytes(t, "t10k-images-idx3-ubyte")[:16+1000*784]
	binary.BigEndian.PutUint32(img[4:], 1000)
	for _, tt := range []struct {
		name    string
		file    []byte
		sized   bool
		info    idx.Info // what was read before the error
		offset  int64
		msg     string
		cause   error
		records int
	}{
		{"truncated", img[:500_000], false, idx.Info{Records: 637, Bytes: 500_000},
			500_000, "record 637 of 1000", io.ErrUnexpectedEOF, 637},
		{"truncated, size known", img[:500_000], true, idx.Info{Bytes: 16},
			500_000, "record 637 of 1000", io.ErrUnexpectedEOF, 637},
		{"truncated gzip", badinput.Gzip(img[:500_000]), false, idx.Info{Records: 637, Bytes: 500_000, Gzipped: true},
			500_000, "record 637 of 1000", io.ErrUnexpectedEOF, 637},
		{"data after the end", append(slices.Clone(img), 0), false, idx.Info{Records: 1000, Bytes: 784016},
			784016, "after the last record", nil, -1},
		{"data after the end, size known", append(slices.Clone(img), 0), true, idx.Info{Bytes: 16},
			784016, "1 bytes after the last record", nil, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var opts []idx.Option
			if tt.sized {
				opts = append(opts, idx.InputSize(int64(len(tt.file))))
			}
			info, err := idx.Check(bytes.NewReader(tt.file), "x", opts...)
			fe := wantError(t, err, "x", tt.offset, tt.msg, tt.cause)
			if fe.Record != int64(tt.records) {
				t.Errorf("record %d, want %d", fe.Record, tt.records)
			}
			if !slices.Equal(info.Dims, []int{1000, 28, 28}) || info.Records != tt.info.Records ||
				info.Bytes != tt.info.Bytes || info.Gzipped != tt.info.Gzipped {
				t.Errorf("info %+v, want %+v", info, tt.info)
			}
		})
	}
	// A header that declares too much is described, and refused.
	info, err := idx.Check(bytes.NewReader(badinput.IDXFile(0x0D, []uint32{1 << 30, 1 << 10}, nil)), "big")
	wantError(t, err, "big", 4, "MaxFileBytes", idx.ErrTooLarge)
	if info.DType != sample.Float32 || !slices.Equal(info.Dims, []int{1 << 30, 1 << 10}) || info.Records != 0 {
		t.Errorf("info %+v", info)
	}
	// A stream that is not IDX has no header to describe.
	info, err = idx.Check(strings.NewReader("hello"), "text")
	wantError(t, err, "text", 0, "bad magic", nil)
	if info.Dims != nil || info.Records != 0 {
		t.Errorf("info %+v", info)
	}
}

func TestIs(t *testing.T) {
	head := func(name string) []byte {
		b, err := os.ReadFile(gz(name))
		if err != nil {
			t.Fatal(err)
		}
		return b[:idx.HeadSize]
	}
	named := func(b []byte, name string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Name = name
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	labels := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	long := named(labels, strings.Repeat("n", 400))
	for _, tt := range []struct {
		name string
		head []byte
		want bool
	}{
		{"plain labels", labels[:idx.HeadSize], true},
		{"plain magic only", labels[:4], true},
		{"gzipped images", head("t10k-images-idx3-ubyte"), true},
		{"gzipped labels", head("train-labels-idx1-ubyte"), true},
		{"gzip with a long name", long[:idx.HeadSize], true},
		{"gzip cut in its name", long[:100], false},
		{"scalar", []byte{0, 0, 0x0E, 0}, true},
		{"every type", []byte{0, 0, 0x09, 1}, true},
		{"empty", nil, false},
		{"3 bytes", []byte{0, 0, 8}, false},
		{"unknown type", []byte{0, 0, 0x0A, 1}, false},
		{"too many dims", []byte{0, 0, 8, 33}, false},
		{"text", []byte("hello, world"), false},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), false},
		{"RecordIO", []byte{0x0a, 0x23, 0xd7, 0xce, 4, 0, 0, 0}, false},
		{"gzipped text", badinput.Gzip([]byte("hello, world")), false},
		{"gzip header only", badinput.Gzip(labels)[:10], false},
	} {
		if got := idx.Is(tt.head); got != tt.want {
			t.Errorf("%s: Is = %v, want %v", tt.name, got, tt.want)
		}
	}
}
