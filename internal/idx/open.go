package idx

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tensorfeed/tensorfeed/storage"
)

// Input is an open IDX file, read from its start: a local file, or a
// remote object read through package storage with read-ahead.
type Input struct {
	io.Reader
	Name string // the path or URL the file was opened with
	Size int64  // -1 when unknown (a local file that is not regular)
	os   *os.File
	obj  storage.File
}

// Close closes the file (and stops a remote file's read-ahead).
func (f *Input) Close() error {
	if f.os != nil {
		return f.os.Close()
	}
	return f.obj.Close()
}

// Open opens a local path with os.Open, so that its errors read as the os
// package's, and a URL (s3://, http(s)://) through package storage with
// sopts; ctx bounds a remote file's requests until it is closed.
func Open(ctx context.Context, name string, sopts []storage.Option) (*Input, error) {
	if !storage.IsRemote(name) {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		size := st.Size()
		if !st.Mode().IsRegular() {
			size = -1
		}
		return &Input{Reader: f, Name: name, Size: size, os: f}, nil
	}
	obj, err := storage.OpenFile(ctx, name, sopts...)
	if err != nil {
		return nil, err
	}
	return &Input{Reader: obj, Name: name, Size: obj.Size(), obj: obj}, nil
}

// FileKey identifies a version of a file, for the decoded-file cache.
type FileKey struct {
	path  string
	size  int64
	mtime time.Time
	etag  string // a remote file's ETag at open (its mtime is zero)
}

// Key returns the key of the file's version: a local file's absolute path,
// size and modification time, a remote one's URL, size and ETag. ok is
// false for a local file that is not regular (a pipe, a device), which is
// not to be cached.
func (f *Input) Key() (k FileKey, ok bool, err error) {
	if f.obj != nil {
		return FileKey{path: f.Name, size: f.Size, etag: f.obj.ETag()}, true, nil
	}
	st, err := f.os.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return FileKey{}, false, err
	}
	path, err := filepath.Abs(f.os.Name())
	if err != nil {
		return FileKey{}, false, err
	}
	return FileKey{path: path, size: st.Size(), mtime: st.ModTime()}, true, nil
}
