package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"iter"

	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/storage"
)

// openAs returns the registry's records of the file at path in the format
// name, read through storage with opts.
func openAs(ctx context.Context, name, path string, opts []storage.Option) iter.Seq2[format.Record, error] {
	f, _ := format.Default().Lookup(name)
	if len(opts) > 0 {
		f = f.Storage(opts...)
	}
	return func(yield func(format.Record, error) bool) {
		for rec, err := range f.Open(path, nil).All(ctx) {
			var pe *fs.PathError
			if err != nil && !storage.IsRemote(path) && errors.As(err, &pe) && pe.Path == path {
				err = pe // the system's "open PATH: ...", as every local input reports it
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}

// readList reads every entry of the .lst file at name (a local path or a
// URL), as the registry's lst format reads it: a malformed line, a
// repeated index or an image path that leaves the root ends it.
func readList(ctx context.Context, name string, opts []storage.Option) ([]imagerec.ListEntry, error) {
	var out []imagerec.ListEntry
	for rec, err := range openAs(ctx, "lst", name, opts) {
		if err != nil {
			return nil, err
		}
		es, err := imagerec.ParseList(bytes.NewReader(rec.Data), name)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	return out, nil
}
