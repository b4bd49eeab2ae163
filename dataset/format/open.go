package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

type config struct {
	workers, buffer int
	registry        *Registry
	bad             *source.SkipPolicy
	storage         []storage.Option
	mixed           bool         // Check: see Mixed
	rows            []csv.Option // Check: see Rows; nil when not given
}

// Option configures Open.
type Option = option.Option[config]

// Workers sets how many files are read at once (default 1: the files one
// after the other, in order, so passes are deterministic). With more, each
// worker reads whole files and the records of different files interleave;
// the records of one file keep their order. Open panics if n < 1.
func Workers(n int) Option { return option.New(func(c *config) { c.workers = n }) }

// WithRegistry makes Open use r instead of Default().
func WithRegistry(r *Registry) Option { return option.New(func(c *config) { c.registry = r }) }

// Storage sets the options of package storage through which specs are
// listed, heads read for detection and files opened: how to reach an S3
// endpoint (storage.Endpoint, storage.Credentials), a local cache of remote
// objects (storage.WithCache), retries. Each format is given them through
// its Format.Storage. Without it, URLs are read with storage's defaults
// (the AWS_* environment variables, AWS_ENDPOINT_URL for an S3-compatible
// server such as MinIO).
func Storage(opts ...storage.Option) Option {
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// ErrSpec is wrapped by the error of a spec that cannot be opened: an
// unknown tag, a pattern that matches no file, a file whose format is not
// known (that error wraps tensorfeed.ErrBadData too); and by Format.Show's
// error about the shape it was given.
var ErrSpec = errors.New("format: bad spec")

// Open returns a reader over the records of the files that specs name. A
// spec is [tag:]pattern: tag is a registered format's name and pattern a
// local filepath.Glob pattern (a plain path is a pattern that matches
// itself), an s3://bucket/ URL whose key may be a glob (s3://bucket/train-*.rec)
// or an http(s):// URL; see storage.List. A prefix before the first ':' that
// is a valid format name (two or more of a-z, 0-9, '_', '-') is taken as a
// tag, unless the spec is a URL (s3://, http://, https://): so
// "recordio:s3://bucket/x.rec" is tagged and "s3://bucket/x.rec" is not.
// Write ./name to read a local file whose name has such a prefix. Each
// pattern's matches are read in sorted order, the specs in the order given;
// a URL without glob characters names one object.
//
// Each pass expands the patterns again, then reads the files through
// source.Files: a file with a tag is opened by that format; one without is
// recognised from its first headSize bytes (see the package doc). Files
// and URLs are read through package storage (see Storage). An unknown tag
// or a pattern that matches nothing fails the pass with an error wrapping
// ErrSpec; a file no format recognises, with a *tensorfeed.Error that wraps ErrSpec and tensorfeed.ErrBadData; a missing
// object, with the storage's error naming its URL (storage.ErrNotFound).
// Errors of the formats' readers end the pass and name their file, unless
// a policy (OnBad) lets the formats skip bad records.
//
// The workers read up to 64 records ahead of the consumer. Open panics if
// Workers is given a value below 1.
func Open(specs []string, opts ...Option) source.Reader[Record] {
	cfg := config{workers: 1, buffer: 64}
	option.Apply(&cfg, opts)
	if cfg.workers < 1 {
		panic("format: Open needs Workers >= 1")
	}
	reg := cfg.registry
	if reg == nil {
		reg = Default()
	}
	specs = slices.Clone(specs)
	return source.Func[Record](func(ctx context.Context) iter.Seq2[Record, error] {
		paths, tags, err := expand(ctx, reg, specs, cfg.storage)
		if err != nil {
			return source.Fail[Record](err)
		}
		// A path that two specs name is read twice; naming it with two
		// different formats is a mistake in the specs.
		byPath := make(map[string]string, len(paths))
		for i, p := range paths {
			if t, seen := byPath[p]; seen && t != tags[i] {
				return source.Fail[Record](fmt.Errorf("%w: %s is named by two specs with different formats (%q and %q)",
					ErrSpec, p, orDetected(t), orDetected(tags[i])))
			}
			byPath[p] = tags[i]
		}
		seams := newSeams(paths)
		return source.Files(paths, cfg.workers, func(path string) source.Reader[Record] {
			i := seams.index(path)
			return openOne(reg, path, byPath[path], cfg.bad, cfg.storage, func(name string, r source.Reader[Record]) source.Reader[Record] {
				return seams.wrap(i, name, r)
			})
		}, cfg.buffer).All(ctx)
	})
}

// orDetected names a spec's format for an error: its tag, or detection.
func orDetected(tag string) string {
	if tag == "" {
		return "detected"
	}
	return tag
}

// expand splits the specs into tags and patterns and expands the patterns
// through storage.List; a URL without glob characters is taken as it is.
func expand(ctx context.Context, reg *Registry, specs []string, sopts []storage.Option) (paths, tags []string, err error) {
	for _, spec := range specs {
		tag, pattern := splitSpec(spec)
		if tag != "" {
			if _, ok := reg.Lookup(tag); !ok {
				return nil, nil, fmt.Errorf("%w %q: unknown format %q (registered: %s)", ErrSpec, spec, tag, strings.Join(reg.Names(), ", "))
			}
		}
		if storage.IsRemote(pattern) && !strings.ContainsAny(pattern, "*?[") {
			paths = append(paths, pattern)
			tags = append(tags, tag)
			continue
		}
		matches, err := storage.List(ctx, pattern, sopts...)
		if cerr := ctx.Err(); cerr != nil {
			// An S3 listing cut by cancellation may end early without an
			// error.
			return nil, nil, cerr
		}
		switch {
		case errors.Is(err, filepath.ErrBadPattern) || errors.Is(err, path.ErrBadPattern):
			return nil, nil, fmt.Errorf("%w %q: %v", ErrSpec, spec, err)
		case err != nil:
			return nil, nil, fmt.Errorf("format: listing %q: %w", spec, err)
		case len(matches) == 0:
			return nil, nil, fmt.Errorf("%w %q: no file matches %q", ErrSpec, spec, pattern)
		}
		for _, m := range matches {
			paths = append(paths, m)
			tags = append(tags, tag)
		}
	}
	return paths, tags, nil
}

// splitSpec splits "tag:pattern" into its tag and pattern; tag is "" when
// the prefix before the first ':' is not a valid format name.
func splitSpec(spec string) (tag, pattern string) {
	if storage.IsRemote(spec) {
		return "", spec
	}
	if t, p, ok := strings.Cut(spec, ":"); ok && validTag(t) {
		return t, p
	}
	return "", spec
}

// openOne returns the reader of one file: by its tag, or by detection in
// the pass; under bad when it is set. wrap is given the name of the format
// and its reader, and returns the reader to read (see seams).
func openOne(reg *Registry, path, tag string, bad *source.SkipPolicy, sopts []storage.Option, wrap func(string, source.Reader[Record]) source.Reader[Record]) source.Reader[Record] {
	if tag != "" {
		f, _ := reg.Lookup(tag)
		return wrap(tag, f.withStorage(sopts).Open(path, bad))
	}
	return source.Func[Record](func(ctx context.Context) iter.Seq2[Record, error] {
		head, err := readHead(ctx, path, sopts)
		if err != nil {
			return source.Fail[Record](err)
		}
		name, err := reg.detect(path, head)
		if err != nil {
			return source.Fail[Record](err)
		}
		f, _ := reg.Lookup(name)
		return wrap(name, f.withStorage(sopts).Open(path, bad)).All(ctx)
	})
}

// readHead returns the first headSize bytes of the file at path, or all of
// it if shorter: one read at offset 0 (one range request for a URL).
func readHead(ctx context.Context, path string, sopts []storage.Option) ([]byte, error) {
	f, err := openFile(ctx, path, sopts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, min(headSize, f.Size()))
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return head[:n], nil
}
