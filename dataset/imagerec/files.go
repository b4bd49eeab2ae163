package imagerec

import (
	"context"
	"os"

	"github.com/tensorfeed/tensorfeed/storage"
)

// osFile is a local file as a storage.File.
type osFile struct {
	*os.File
	size int64
}

func (f *osFile) Size() int64 { return f.size }

// openFile opens a local path with os.Open, so that its errors read as
// they always have, and a URL through package storage with sopts; ctx
// bounds a remote file's requests until it is closed. A remote file's
// ReadAt is one range request; its Read streams with read-ahead.
func openFile(ctx context.Context, name string, sopts []storage.Option) (storage.File, error) {
	if storage.IsRemote(name) {
		return storage.OpenFile(ctx, name, sopts...)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &osFile{File: f, size: st.Size()}, nil
}
