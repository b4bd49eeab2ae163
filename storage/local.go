package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

type localFile struct{ f *os.File }

func (l localFile) readRange(_ context.Context, p []byte, off int64) (int, error) {
	n, err := l.f.ReadAt(p, off)
	if err == io.EOF && n == len(p) {
		err = nil
	}
	return n, err
}

func (l localFile) close() error { return l.f.Close() }

func openLocal(name string, cfg config) (*object, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, objectError("open", name, 0, -1, localErr(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, objectError("open", name, 0, -1, err)
	}
	etag := fmt.Sprintf("%x-%x", fi.Size(), fi.ModTime().UnixNano())
	return &object{name: name, size: fi.Size(), etag: etag, be: localFile{f}, cfg: cfg, local: true, validated: true}, nil
}

// localErr adds this package's sentinels to a file-system error.
func localErr(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: %w", ErrDenied, err)
	}
	return err
}

func listLocal(pattern string) ([]string, error) {
	names, err := filepath.Glob(pattern)
	if err != nil {
		return nil, objectError("list", pattern, 0, -1, err)
	}
	slices.Sort(names)
	return names, nil
}
