package webdataset

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

type writerConfig struct {
	gzip  bool
	level int
}

// WriterOption configures a [Writer].
type WriterOption = option.Option[writerConfig]

// Gzip compresses the shard with gzip at the given level
// (gzip.DefaultCompression, gzip.BestSpeed, ... as compress/gzip takes
// them), making a .tar.gz shard. It panics on a level compress/gzip does
// not accept.
func Gzip(level int) WriterOption {
	if level < gzip.HuffmanOnly || level > gzip.BestCompression {
		panic(fmt.Sprintf("webdataset: Gzip(%d): not a compress/gzip level", level))
	}
	return option.New(func(c *writerConfig) { c.gzip, c.level = true, level })
}

// Writer writes samples to a shard as tar members, in order: the members
// of a sample are consecutive, one per field, named key.field, in the
// order of the sorted field names. Members are regular files with mode
// 0644 and a zero modification time, so the same samples always give the
// same bytes. Close ends the archive.
type Writer struct {
	w    io.Writer
	zw   *gzip.Writer
	tw   *tar.Writer
	seen map[string]struct{}
	err  error
}

// NewWriter returns a writer of a shard to w. Close must be called to end
// the archive; it does not close w.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	var c writerConfig
	option.Apply(&c, opts)
	wr := &Writer{w: w, seen: make(map[string]struct{})}
	if c.gzip {
		zw, err := gzip.NewWriterLevel(w, c.level)
		if err != nil {
			panic(err) // the level was checked by Gzip
		}
		wr.zw = zw
		w = zw
	}
	wr.tw = tar.NewWriter(w)
	return wr
}

// ErrWrite is wrapped by the errors Write returns for samples that a
// reader could not read back as they were given, or whose members would
// land outside the folder a shard is extracted into: an empty key, a key
// whose base name holds a dot, a field name that is empty or holds a
// slash, a key written before, and a member name that is absolute (a
// leading slash, a Windows drive letter) or holds a ".." path element
// (backslashes taken for slashes, as Windows tools take them).
var ErrWrite = errors.New("webdataset: sample cannot be written")

// Write writes the fields of s (s.Shard and s.Offset are not used) as the
// members of one sample. A sample with no field writes nothing. After an
// error from the underlying writer, every call returns that error.
func (w *Writer) Write(s Sample) error {
	if w.err != nil {
		return w.err
	}
	if msg := unsafeName(s.Key); msg != "" {
		return fmt.Errorf("%w: key %q %s", ErrWrite, clip(s.Key), msg)
	}
	if err := checkKey(s.Key); err != nil {
		return err
	}
	if _, dup := w.seen[s.Key]; dup {
		return fmt.Errorf("%w: key %q written before", ErrWrite, s.Key)
	}
	names := slices.Sorted(maps.Keys(s.Fields))
	for _, f := range names {
		if f == "" || strings.ContainsRune(f, '/') || strings.HasSuffix(f, ".") {
			return fmt.Errorf("%w: sample %q: bad field name %q", ErrWrite, s.Key, f)
		}
		if msg := unsafeName(s.Key + "." + f); msg != "" {
			return fmt.Errorf("%w: member name %q %s", ErrWrite, clip(s.Key+"."+f), msg)
		}
	}
	if len(names) == 0 {
		return nil
	}
	w.seen[s.Key] = struct{}{}
	for _, f := range names {
		b := s.Fields[f]
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: s.Key + "." + f, Mode: 0o644, Size: int64(len(b))}
		if err := w.tw.WriteHeader(hdr); err != nil {
			w.err = err
			return err
		}
		if _, err := w.tw.Write(b); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

func checkKey(key string) error {
	base := path.Base(key)
	if key == "" || strings.HasSuffix(key, "/") || strings.ContainsRune(base, '.') || base == "" {
		return fmt.Errorf("%w: bad key %q (it must be a path whose base name has no dot)", ErrWrite, key)
	}
	return nil
}

// unsafeName says why name is unsafe to extract, or "": tar and
// WebDataset's own tools extract members under their names, so an
// absolute name or a ".." element writes outside the target folder. It
// judges names as the im2rec command judges image paths, backslashes as
// slashes.
func unsafeName(name string) string {
	slashed := strings.ReplaceAll(name, `\`, "/")
	if path.IsAbs(slashed) || len(slashed) >= 2 && slashed[1] == ':' {
		return "is absolute; members are named relative to the folder a shard is extracted into"
	}
	for _, c := range strings.Split(slashed, "/") {
		if c == ".." {
			return `holds a ".." path element, which leaves the folder a shard is extracted into`
		}
	}
	return ""
}

// clip shortens a name quoted in an error.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// errClosed is what Write and Close return after Close.
var errClosed = errors.New("webdataset: Writer is closed")

// Close writes the end of the archive (and of the gzip stream) and
// flushes it to the underlying writer, which it does not close. Later
// calls of Write and Close return an error.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	err := w.tw.Close()
	if w.zw != nil && err == nil {
		err = w.zw.Close()
	}
	w.err = errClosed
	return err
}
