package idx

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
)

// Info describes an IDX file that [Check] has read.
type Info struct {
	// Header is the file's header; its Dims are nil when the header could
	// not be read.
	Header
	Gzipped bool  // whether the file is gzip-compressed
	Records int   // how many whole records were read
	Bytes   int64 // how many bytes of the uncompressed stream were read
}

// Check reads a whole IDX stream and reports what it holds, or the first
// thing wrong with it as a *tensorfeed.Error naming name and the offset
// (and the record, where there is one). It reads in bounded memory, a few
// buffers of fixed size whatever the header declares, so it suits files too
// large to load and files that must not be trusted; a gzip stream is
// decompressed as it is read, up to [MaxFileBytes]. [InputSize] lets a plain
// file that is too short or too long be reported without reading it. The
// info is filled in as far as the stream was read, also when there is an
// error.
func Check(r io.Reader, name string, opts ...Option) (Info, error) {
	x, err := newReader(r, name, opts)
	info := Info{Header: x.Header(), Gzipped: x.Gzipped()}
	if err == nil {
		err = x.Skip(x.Header().Records())
	}
	if err == nil {
		err = x.ReadRaw(nil) // io.EOF once the end is checked
	}
	info.Bytes = x.Offset()
	if x.recBytes > 0 {
		info.Records = int(max(info.Bytes-x.Header().Size(), 0) / int64(x.recBytes))
	}
	if err == io.EOF {
		err = nil
	}
	return info, err
}

// CheckFile is [Check] on the file at path, checked against the file's
// size. path may be an s3:// or http(s):// URL, read through package
// storage with its defaults, as [ReadFile] reads one.
func CheckFile(path string, opts ...Option) (Info, error) {
	f, err := Open(context.Background(), path, nil)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	return Check(f, path, WithSize(f.Size, opts)...)
}

// HeadSize is how many of a file's first bytes [Is] needs to recognise a
// gzipped IDX file in any case; a plain one needs 4.
const HeadSize = 512

// Is reports whether head, the first bytes of a file, starts like an IDX
// file: the magic number 00 00 TT DD with a known element type TT and at
// most 32 dimensions DD. A gzip stream is recognised when the first 4 bytes
// it decompresses to are such a magic number; head should then hold the
// first [HeadSize] bytes of the file (or the whole file, if shorter),
// since the gzip header may carry a file name before the data. Is only
// looks at the magic number: [Check] says whether the rest is good.
func Is(head []byte) bool {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return false
		}
		var magic [4]byte
		if _, err := io.ReadFull(zr, magic[:]); err != nil {
			return false
		}
		head = magic[:]
	}
	if len(head) < 4 || head[0] != 0 || head[1] != 0 || int(head[3]) > maxDims {
		return false
	}
	_, ok := idxTypes[head[2]]
	return ok
}
