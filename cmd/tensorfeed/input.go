package main

import (
	"context"
	"io"

	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/storage"
)

// openInput opens a command's input, a local path or a URL (see
// checkstat.Open).
var openInput = checkstat.Open

// inputExists reports whether name is a regular local file or an object
// that can be opened.
var inputExists = checkstat.Exists

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
