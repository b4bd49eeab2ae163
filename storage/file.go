package storage

import (
	"context"
	"errors"
	"io"
	"os"
)

// File is an opened object with the methods of *os.File that format readers
// use: sequential reads (with read-ahead for remote objects), reads at an
// offset, Seek, and the size without a Stat.
type File interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
	// Name returns the path or URL it was opened with.
	Name() string
	// Size returns its size in bytes at open.
	Size() int64
}

// OpenFile opens name as Open does and returns it as a File, the
// replacement of os.Open in a reader that should also take URLs. A local
// path is read through its *os.File directly. For a remote object, Read
// streams through a read-ahead Reader bound to ctx (a Seek restarts it where
// it lands), and ReadAt makes one range request.
func OpenFile(ctx context.Context, name string, opts ...Option) (File, error) {
	o, err := Open(ctx, name, opts...)
	if err != nil {
		return nil, err
	}
	if lf, ok := o.be.(localFile); ok && o.name == name && scheme(name) == "" {
		return &osFile{File: lf.f, size: o.size}, nil
	}
	return &remoteFile{ctx: ctx, obj: o}, nil
}

type osFile struct {
	*os.File
	size int64
}

func (f *osFile) Size() int64 { return f.size }

// remoteFile is a File over an Object (remote, or a cached copy).
type remoteFile struct {
	ctx context.Context
	obj *Object
	r   *objectReader // nil until the first Read after an open or a Seek
	pos int64
}

func (f *remoteFile) Name() string { return f.obj.name }
func (f *remoteFile) Size() int64  { return f.obj.size }

func (f *remoteFile) Read(p []byte) (int, error) {
	if f.pos >= f.obj.size {
		return 0, io.EOF
	}
	if f.r == nil {
		f.r = f.obj.readerFrom(f.ctx, f.pos)
	}
	n, err := f.r.Read(p)
	f.pos += int64(n)
	return n, err
}

func (f *remoteFile) ReadAt(p []byte, off int64) (int, error) {
	return f.obj.ReadAtContext(f.ctx, p, off)
}

func (f *remoteFile) Seek(offset int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case io.SeekStart:
		pos = offset
	case io.SeekCurrent:
		pos = f.pos + offset
	case io.SeekEnd:
		pos = f.obj.size + offset
	default:
		return f.pos, objectError("seek", f.obj.name, 0, -1, errors.New("invalid whence"))
	}
	if pos < 0 {
		return f.pos, objectError("seek", f.obj.name, 0, -1, errors.New("negative position"))
	}
	if pos != f.pos && f.r != nil {
		f.r.Close()
		f.r = nil
	}
	f.pos = pos
	return pos, nil
}

func (f *remoteFile) Close() error {
	if f.r != nil {
		f.r.Close()
	}
	return f.obj.Close()
}
