package mnist

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// reader is a Dataset's reader of samples or refs. It is source.Resumable:
// its state is the position in the epoch's order. A pass that holds its
// samples in memory (a shuffled pass, every pass of Refs) starts at that
// position directly: the order of the good samples is drawn again from
// (seed, epoch) and nothing before the position is yielded. A pass in the
// files' order streams them, so it resumes by replay.
type reader[T any] struct {
	d      *Dataset
	name   string
	pass   func(ctx context.Context, epochs *source.Epochs, from int) iter.Seq2[T, error]
	epochs *source.Epochs
	from   int
}

func newReader[T any](d *Dataset, name string, pass func(context.Context, *source.Epochs, int) iter.Seq2[T, error]) *reader[T] {
	return &reader[T]{d: d, name: name, pass: pass, epochs: new(source.Epochs)}
}

func (r *reader[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return r.pass(ctx, r.epochs, r.from)
}

// inMemory reports whether the reader's passes start anywhere directly.
func (r *reader[T]) inMemory() bool { return r.d.cfg.shuffle || r.name == "refs" }

// kind names the reader in states: the files it reads (by name, not
// folder, so a run resumes with its data moved), its order, shard and
// classes.
func (r *reader[T]) kind() string {
	c := r.d.cfg
	order := "files"
	switch {
	case c.shuffle && c.once:
		order = fmt.Sprintf("once=%d", c.seed)
	case c.shuffle:
		order = fmt.Sprintf("shuffle=%d", c.seed)
	}
	return fmt.Sprintf("mnist-%s(%s,%s,shard=%d/%d,classes=%d)", r.name, filepath.Base(r.d.images[0]), order, c.shard, c.shards, c.classes)
}

// StateAt returns {mnist-...(...), [position]}.
func (r *reader[T]) StateAt(_ int, n int64) (source.State, error) {
	return source.State{Kind: r.kind(), Pos: []int64{int64(r.from) + n}}, nil
}

// Resume starts at the position of st: directly for a pass in memory, by
// replay for one in the files' order.
func (r *reader[T]) Resume(st source.State) (source.Reader[T], error) {
	if err := st.Check(r.kind(), 1, 0); err != nil {
		return nil, err
	}
	if !r.inMemory() {
		return source.Replay[T](r, st.Pos[0]), nil
	}
	q := *r
	q.epochs, q.from = new(source.Epochs), int(st.Pos[0])
	return &q, nil
}

// Identity returns the identity of the image and label files the reader
// reads (the first of each list of candidates that exists): their base
// names, sizes and modification times or ETags (source.Identifier).
func (r *reader[T]) Identity(ctx context.Context) (string, error) { return r.d.identity(ctx) }

// identity is the identity of the dataset's image and label files, for
// its readers and the tables it loads.
func (d *Dataset) identity(ctx context.Context) (string, error) {
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

var _ source.Identifier = (*reader[int])(nil)
