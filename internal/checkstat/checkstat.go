// Package checkstat holds what the checks of files share, wherever the
// format's check lives: how a local file or a URL is opened, the
// statistics of labels they summarise, and the Meter of the bytes a check
// reads, which the command supplies through the check's context.
package checkstat

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/storage"
)

// Labels summarises labels: how many of each value, up to a bound on
// distinct values so that memory stays small for regression targets.
type Labels struct {
	n        int64
	min, max float64
	counts   map[float64]int64
	overflow bool // more distinct values than MaxDistinct
}

// MaxDistinct is how many distinct label values Labels counts one by one.
const MaxDistinct = 1000

// Add counts v.
func (s *Labels) Add(v float64) {
	if s.counts == nil {
		s.counts = map[float64]int64{}
		s.min, s.max = v, v
	}
	s.n++
	s.min, s.max = min(s.min, v), max(s.max, v)
	if _, ok := s.counts[v]; ok || len(s.counts) < MaxDistinct {
		s.counts[v]++
	} else {
		s.overflow = true
	}
}

// String describes the labels: their range and, for few distinct values,
// the count of each.
func (s *Labels) String() string {
	if s.n == 0 {
		return "no labels"
	}
	if s.overflow {
		return fmt.Sprintf("labels in [%g, %g], more than %d distinct", s.min, s.max, MaxDistinct)
	}
	keys := make([]float64, 0, len(s.counts))
	for k := range s.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "labels in [%g, %g], %d distinct", s.min, s.max, len(keys))
	if len(keys) <= 20 {
		b.WriteString(":")
		for _, k := range keys {
			fmt.Fprintf(&b, " %g:%d", k, s.counts[k])
		}
	}
	return b.String()
}

// BarMinBytes is the size from which a check reports its progress:
// smaller files are checked in a blink.
const BarMinBytes = 16 << 20

// Meter is told the bytes a check reads, and when the check ends. The
// command supplies it (cmd/tensorfeed draws a progress bar), so that no
// library package links a drawing library.
type Meter interface {
	Add(n int)
	Finish()
}

type meterKey struct{}

// WithMeter returns ctx under which the checks of large files report the
// bytes they read to the Meter that start returns for the file name of
// size bytes.
func WithMeter(ctx context.Context, start func(name string, size int64) Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, start)
}

// Bar returns the Meter of the bytes read of the file name of size bytes:
// the one ctx's WithMeter starts when the file is large, otherwise one
// that does nothing. Finish must be called.
func Bar(ctx context.Context, name string, size int64) Meter {
	start, _ := ctx.Value(meterKey{}).(func(string, int64) Meter)
	if start == nil || size < BarMinBytes {
		return nopMeter{}
	}
	return start(name, size)
}

type nopMeter struct{}

func (nopMeter) Add(int) {}
func (nopMeter) Finish() {}

// Counting returns r reporting the bytes read through it to m.
func Counting(r io.Reader, m Meter) io.Reader { return countingReader{r, m} }

type countingReader struct {
	r io.Reader
	m Meter
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.m.Add(n)
	return n, err
}

// Open opens the input of a check or a command: a local path with os.Open
// (its errors are the system's, "open PATH: no such file or directory"),
// an s3:// or http(s):// URL through package storage with opts.
func Open(ctx context.Context, name string, opts []storage.Option) (storage.File, error) {
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

// ETag is "": a check reads its input once and compares no versions.
func (f *localInput) ETag() string { return "" }

// Exists reports whether name is a regular local file or an object that
// can be opened with opts.
func Exists(ctx context.Context, name string, opts []storage.Option) bool {
	if !storage.IsRemote(name) {
		st, err := os.Stat(name)
		return err == nil && st.Mode().IsRegular()
	}
	o, err := storage.OpenFile(ctx, name, opts...)
	if err != nil {
		return false
	}
	o.Close()
	return true
}

// IsGzip reports whether the file or object name starts with the gzip
// magic, for a check's summary.
func IsGzip(ctx context.Context, name string, opts []storage.Option) (bool, error) {
	f, err := Open(ctx, name, opts)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var head [2]byte
	n, err := f.ReadAt(head[:], 0)
	if n < 2 && err != nil && err != io.EOF {
		return false, err
	}
	return n == 2 && head[0] == 0x1f && head[1] == 0x8b, nil
}

// Images summarises the sizes and channels of decoded images.
type Images struct {
	N                      int
	minW, maxW, minH, maxH int
	channels               [5]int // count by channel count
}

// Add counts an image of w x h pixels and c channels.
func (s *Images) Add(w, h, c int) {
	if s.N == 0 {
		s.minW, s.maxW, s.minH, s.maxH = w, w, h, h
	}
	s.N++
	s.minW, s.maxW = min(s.minW, w), max(s.maxW, w)
	s.minH, s.maxH = min(s.minH, h), max(s.maxH, h)
	if c >= 0 && c < len(s.channels) {
		s.channels[c]++
	}
}

// String describes the images: the range of their sizes and how many have
// each channel count.
func (s *Images) String() string {
	if s.N == 0 {
		return "no images"
	}
	var ch []string
	for c, k := range s.channels {
		if k > 0 {
			ch = append(ch, fmt.Sprintf("%d with %d channels", k, c))
		}
	}
	return fmt.Sprintf("images %d-%d x %d-%d pixels (width x height), %s", s.minW, s.maxW, s.minH, s.maxH, strings.Join(ch, ", "))
}
