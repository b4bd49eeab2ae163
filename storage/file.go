package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// File is an opened local file, S3 object or HTTP resource with the methods
// of *os.File that format readers use: sequential reads (with read-ahead
// for remote objects), reads at an offset, Seek, and the size and version
// without a Stat. A File is for one goroutine, except ReadAt, which may be
// called concurrently.
type File interface {
	io.Reader
	// ReadAt reads len(p) bytes at offset off, as io.ReaderAt: fewer bytes
	// come with io.EOF when the range passes the end. A range that starts
	// after the end is a *tensorfeed.Error wrapping ErrRange.
	io.ReaderAt
	io.Seeker
	io.Closer
	// Name returns the path or URL it was opened with.
	Name() string
	// Size returns its size in bytes at open.
	Size() int64
	// ETag returns its ETag (or version) at open: reads of a different
	// version fail with ErrChanged. For an HTTP object without an ETag it
	// is its Last-Modified, and "" when it has neither. For a local file it
	// is made of its size and modification time.
	ETag() string
}

// OpenFile opens a local path, an s3://bucket/key object or an http(s)://
// URL: the replacement of os.Open in a reader that should also take URLs.
// It learns the object's size and ETag with one request (retried when the
// failure is transient); a missing object or refused credentials fail at
// once with a *tensorfeed.Error wrapping ErrNotFound or ErrDenied. A local
// path is read through its *os.File directly. For a remote object, Read
// streams with read-ahead ([ReadAhead]) bound to ctx (a Seek restarts it
// where it lands), and ReadAt makes one range request bound to ctx; ctx
// bounds the requests until the File is closed.
func OpenFile(ctx context.Context, name string, opts ...Option) (File, error) {
	o, err := open(ctx, name, opts...)
	if err != nil {
		return nil, err
	}
	if lf, ok := o.be.(localFile); ok && o.name == name && scheme(name) == "" {
		return &osFile{File: lf.f, size: o.size, etag: o.etag}, nil
	}
	return &remoteFile{ctx: ctx, obj: o}, nil
}

type osFile struct {
	*os.File
	size int64
	etag string
}

func (f *osFile) Size() int64  { return f.size }
func (f *osFile) ETag() string { return f.etag }

// ReadAt refuses a range that starts past the end as a remote object's
// ReadAt does (ErrRange), where *os.File would answer io.EOF.
func (f *osFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > f.size {
		return 0, objectError("read", f.Name(), off, int64(len(p)), fmt.Errorf("%w (size %d)", ErrRange, f.size))
	}
	return f.File.ReadAt(p, off)
}

// remoteFile is a File over an object (remote, or a cached copy).
type remoteFile struct {
	ctx context.Context
	obj *object
	r   *objectReader // nil until the first Read after an open or a Seek
	pos int64
}

func (f *remoteFile) Name() string { return f.obj.name }
func (f *remoteFile) Size() int64  { return f.obj.size }
func (f *remoteFile) ETag() string { return f.obj.etag }

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
	return f.obj.readAt(f.ctx, p, off)
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
	return f.obj.close()
}
