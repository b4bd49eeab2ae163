package mnist

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// kind names the dataset's reader in states: the files it reads (by name,
// not folder, so a run resumes with its data moved) and its classes.
func (d *Dataset) kind() string {
	return fmt.Sprintf("mnist(%s,classes=%d)", filepath.Base(d.images[0]), d.cfg.classes)
}

// StateAt returns {mnist(...), [position]} (source.Resumable): the record
// of the files the pass has reached.
func (d *Dataset) StateAt(_ int, n int64) (source.State, error) {
	return source.State{Kind: d.kind(), Pos: []int64{int64(d.from) + n}}, nil
}

// Resume returns the dataset reading from the position of st
// (source.Resumable). Under the default policy every record is a sample,
// so the pass skips to that record directly; under a bad-record policy
// (whose skipped records are not counted in positions) it replays the
// samples before the position.
func (d *Dataset) Resume(st source.State) (source.Reader[Sample], error) {
	if err := st.Check(d.kind(), 1, 0); err != nil {
		return nil, err
	}
	if d.cfg.skip != nil {
		return source.Replay[Sample](d, st.Pos[0]), nil
	}
	q := *d
	q.epochs, q.from = new(source.Epochs), int(st.Pos[0])
	return &q, nil
}

// Identity returns the identity of the image and label files (the first of
// each list of candidates that exists): their base names, sizes and
// modification times or ETags (source.Identifier).
func (d *Dataset) Identity(ctx context.Context) (string, error) {
	var ids []string
	for _, paths := range [][]string{d.images, d.labels} {
		id, err := firstIdentity(ctx, paths, d.cfg.storage)
		if err != nil {
			return "", err
		}
		ids = append(ids, id)
	}
	return strings.Join(ids, ", "), nil
}

// firstIdentity returns the identity of the first of paths that exists.
func firstIdentity(ctx context.Context, paths []string, sopts []storage.Option) (string, error) {
	var last error
	for _, p := range paths {
		id, err := dataid.Files(ctx, []string{p}, sopts...)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, storage.ErrNotFound) {
			return "", err
		}
		last = err
	}
	return "", fmt.Errorf("mnist: none of %q: %w", paths, last)
}
