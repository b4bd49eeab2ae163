package mxnet

import (
	"context"

	"errors"
	"fmt"
	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/storage"
)

// recFiles resolves path_imgrec: a file, a ";"-separated list
// of files, or a directory, whose .rec files are taken in name order. An
// element of the list may be a URL (see Storage): one ending in ".rec"
// names one object; an s3:// URL with glob characters is listed as a
// glob, another s3:// URL as a directory (the .rec objects directly under
// it) through storage.List, in key order.
func recFiles(ctx context.Context, arg string, sopts []storage.Option) ([]string, error) {
	if arg == "" {
		return nil, errors.New("the .rec path is empty")
	}
	var paths []string
	for _, p := range strings.Split(arg, ";") {
		if p == "" {
			return nil, fmt.Errorf("%q: an empty path in the list", arg)
		}
		if storage.IsRemote(p) {
			recs, err := remoteRecFiles(ctx, p, sopts)
			if err != nil {
				return nil, err
			}
			paths = append(paths, recs...)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			paths = append(paths, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var recs []string
		for _, e := range ents {
			if !e.IsDir() && filepath.Ext(e.Name()) == ".rec" {
				recs = append(recs, filepath.Join(p, e.Name()))
			}
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("%s: no .rec file in the directory", p)
		}
		slices.Sort(recs)
		paths = append(paths, recs...)
	}
	return paths, nil
}

// remoteRecFiles resolves one URL of the .rec argument (see recFiles).
func remoteRecFiles(ctx context.Context, u string, sopts []storage.Option) ([]string, error) {
	s3 := strings.HasPrefix(strings.ToLower(u), "s3://")
	glob := strings.ContainsAny(u, "*?[\\")
	switch {
	case glob && !s3:
		return nil, fmt.Errorf("%s: only s3:// URLs can be listed", u)
	case !glob && path.Ext(u) == ".rec":
		return []string{u}, nil
	case !s3:
		return nil, fmt.Errorf("%s: an http(s) URL names one .rec file and cannot be listed as a directory", u)
	}
	pattern := u
	if !glob {
		pattern = strings.TrimSuffix(u, "/") + "/*.rec"
	}
	recs, err := storage.List(ctx, pattern, sopts...)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no .rec object matches %s", u, pattern)
	}
	return recs, nil
}

// idxFiles resolves path_imgidx for the .rec files recs: a
// ";"-separated list with one .idx per .rec, or a directory holding the
// .idx of each .rec under its base name. The directory may be a URL prefix
// (one URL not ending in ".idx"), to which "/" and the names are appended;
// the files are then read by New, which names a missing one.
func idxFiles(arg string, recs []string) ([]string, error) {
	base := func(r string) string {
		b := path.Base(r)
		if !storage.IsRemote(r) {
			b = filepath.Base(r)
		}
		return strings.TrimSuffix(b, path.Ext(b)) + ".idx"
	}
	if storage.IsRemote(arg) && !strings.Contains(arg, ";") && path.Ext(arg) != ".idx" {
		paths := make([]string, len(recs))
		for i, r := range recs {
			paths[i] = strings.TrimSuffix(arg, "/") + "/" + base(r)
		}
		return paths, nil
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		paths := make([]string, len(recs))
		for i, r := range recs {
			paths[i] = filepath.Join(arg, base(r))
			if _, err := os.Stat(paths[i]); err != nil {
				return nil, fmt.Errorf("%s has no index: %w", r, err)
			}
		}
		return paths, nil
	}
	paths := strings.Split(arg, ";")
	if len(paths) != len(recs) {
		return nil, fmt.Errorf("%d .idx files for %d .rec files", len(paths), len(recs))
	}
	return paths, nil
}

// validateRec checks idx against the local .rec file at name, whole and
// as it is now, and returns the file's size. The check reads the header of
// every record part. (A remote .rec is checked as its records arrive: see
// streamCheck and indexedRecords.)
func validateRec(ctx context.Context, name string, idx *recordio.Index, sopts []storage.Option) (int64, error) {
	f, err := storage.OpenFile(ctx, name, sopts...)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Size(), recordio.ValidateIndex(f, f.Size(), name, idx)
}

// readMeanImage reads the mean image file at path (mean_img) for images of
// shape (c, h, w). It reads no more than such a file can hold, so a huge
// file costs no memory. path may be a URL, read through storage with
// sopts; a missing URL is an error (only a local path may name a mean
// image still to be computed and saved), which does not wrap
// fs.ErrNotExist.
func readMeanImage(ctx context.Context, path string, shape [3]int, sopts []storage.Option) ([]float32, error) {
	f, err := storage.OpenFile(ctx, path, sopts...)
	if storage.IsRemote(path) && errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("mxnet: ImageRecordIter: mean_img %s does not exist: a mean image is computed and saved only to a local path: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	elems := shape[0] * shape[1] * shape[2]
	// Header, shape, context and names take well under 1 KiB.
	limit := int64(elems)*4 + 4096
	var data []byte
	if f.Size() <= limit {
		data, err = io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return nil, err
		}
	}
	if f.Size() > limit || int64(len(data)) > limit {
		return nil, meanImageError(path, limit, fmt.Sprintf("larger than a mean image of shape %v can be", shape))
	}
	got, mean, err := imagerec.ParseMeanImage(data, path)
	if err != nil {
		return nil, err
	}
	if len(got) != 3 || got[0] != shape[0] || got[1] != shape[1] || got[2] != shape[2] {
		return nil, meanImageError(path, 0, fmt.Sprintf("shape %v, data_shape is %v", got, shape))
	}
	return mean, nil
}

// meanImageError returns the error about a mean image file that does not
// fit: a *tensorfeed.Error with the file and the byte offset, which wraps
// imagerec.ErrMeanImage.
func meanImageError(file string, at int64, msg string) error {
	return &tensorfeed.Error{Path: file, Offset: at, Record: -1, Err: cause.New(imagerec.ErrMeanImage, nil, msg)}
}

// recordErr returns the error about a record that could not be turned
// into a row: a *tensorfeed.Error with the file it came from, its index in
// the pass and the byte offset where it starts, wrapping err.
func recordErr(rec recordio.Record, err error) error {
	return &tensorfeed.Error{Path: rec.File, Offset: rec.Offset, Record: int64(rec.Index), Err: err}
}
