package main

import (
	"context"
	"io"
	"os"

	"github.com/tensorfeed/tensorfeed/storage"
)

// openInput opens a command's input: a local path with os.Open (its errors
// are the system's, "open PATH: no such file or directory"), an s3:// or
// http(s):// URL through package storage with opts.
func openInput(ctx context.Context, name string, opts []storage.Option) (storage.File, error) {
	if storage.IsRemote(name) {
		return storage.OpenFile(ctx, name, opts...)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	in := &localInput{File: f}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		in.size = st.Size()
	}
	return in, nil
}

// localInput is a local file as a storage.File; Size is 0 for what is not
// a regular file (a pipe, a device).
type localInput struct {
	*os.File
	size int64
}

func (f *localInput) Size() int64 { return f.size }

// inputExists reports whether name is a regular local file or an object
// that can be opened.
func inputExists(ctx context.Context, name string, opts []storage.Option) bool {
	if !storage.IsRemote(name) {
		st, err := os.Stat(name)
		return err == nil && st.Mode().IsRegular()
	}
	o, err := storage.Open(ctx, name, opts...)
	if err != nil {
		return false
	}
	o.Close()
	return true
}

// readHead returns the first headSize bytes of the file or object, or all
// of it if shorter: a URL's with one read at offset 0 (one range request).
func readHead(ctx context.Context, name string, opts []storage.Option) ([]byte, error) {
	f, err := openInput(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, headSize)
	var n int
	if storage.IsRemote(name) {
		n, err = f.ReadAt(head[:min(headSize, f.Size())], 0)
		if err == io.EOF {
			err = nil
		}
		return head[:n], err
	}
	n, err = io.ReadFull(f, head)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return head[:n], err
}
