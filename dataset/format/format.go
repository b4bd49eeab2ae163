package format

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Record is one record of any format: where it comes from and its raw
// payload. The bytes belong to the record: readers never reuse them.
type Record struct {
	Path   string // the file it was read from
	Index  int64  // its index in the file, from 0
	Offset int64  // byte offset of its start in the file (in the decompressed stream of a gzip file)
	Key    string // the record's key where the format has one (a WebDataset sample's), else ""
	Data   []byte // the payload; nil for WebDataset samples, whose payload is in Fields
	// Fields holds a WebDataset sample's members by field name ("jpg",
	// "cls"); nil for the other formats.
	Fields map[string][]byte
	// Labels are the labels of an image to write (Format.Write), Index
	// then its id; the readers leave them nil.
	Labels []float32
}

// Format is a file format the registry can open.
type Format struct {
	// Detect reports whether head, the first headSize bytes of a file (or
	// the whole file if shorter), starts like this format. Nil means the
	// format is used only when a spec names it by its tag.
	Detect func(head []byte) bool
	// Open returns a reader over the records of the file at path. It should
	// only build the reader: the file is opened when a pass starts and
	// closed when it ends. bad is the pass's bad-record policy (OnBad), or
	// nil: a format that can step over a bad record skips it under bad;
	// one that cannot ignores bad, and its first error ends the pass.
	Open func(path string, bad *source.SkipPolicy) source.Reader[Record]
	// Storage, when set, returns the format reading its files through
	// package storage with opts (an endpoint, credentials, a cache); Open
	// calls it when it is given the Storage option. The built-in formats
	// have it. A format without it is given each path or URL as it is.
	Storage func(opts ...storage.Option) Format
	// Check, when set, reads each file of paths to its end, in order,
	// validating every record as "tensorfeed check" does, and writes on
	// out one line for each good file that says what it holds. A bad file
	// does not stop the check of the next: Check returns the errors that
	// ended the files' checks, each naming its file (a *tensorfeed.Error
	// where it is about the data), joined. Under OnBad in opts, each bad
	// record that the format can step over goes to the policy and the
	// check goes on; that file's summary is then not written. Storage in
	// opts is honoured; the other options are not used. Checking several
	// files at once lets a format look at their seams, as wds does for a
	// sample split across two shards.
	Check func(ctx context.Context, paths []string, out io.Writer, opts ...Option) error
	// Write, when set, creates the file path in this format, and any file
	// the format keeps beside it (a RecordIO file's .idx), and returns the
	// writer of its records. What it writes reads back: a record that the
	// format's readers would refuse with their default limits is an error
	// before it is written. The recordio, tfrecord, wds and parquet
	// formats have it; each doc says how a Record is written.
	Write func(path string) (RecordWriter, error)
	// Show, when set, returns the first n images of the file at path with
	// their labels, for a person to look at ("tensorfeed show" draws them):
	// a batch whose tensor "image" holds them (uint8 or float32, [n H W],
	// [n H W C] or [n C H W]) and whose label tensor, when there is one,
	// is "label", and a line that says what it holds. shape ([H, W, C]) is
	// the shape of records of raw pixels, nil to infer it. Before the
	// pixels are read, as soon as their number and size are known, fit
	// is called with them: its error is returned as it is. An error about
	// shape wraps ErrSpec. The idx and recordio formats have it.
	Show func(ctx context.Context, path string, n int, shape []int, fit func(n, h, w int) error) (*tensor.Batch, string, error)
}

// withStorage returns f reading through storage with opts, when it can
// and opts are given.
func (f Format) withStorage(opts []storage.Option) Format {
	if len(opts) == 0 || f.Storage == nil {
		return f
	}
	return f.Storage(opts...)
}

// headSize is how many bytes of a file detection looks at.
const headSize = 512

// errUnknownFormat is wrapped by the error of a file that no registered
// format recognises: it is a spec that cannot be opened, for its data.
var errUnknownFormat = fmt.Errorf("%w: unknown format: %w", ErrSpec, tensorfeed.ErrBadData)

// Registry maps format names to formats. Its methods are safe for
// concurrent use. The zero value is an empty registry, ready to use;
// Default holds the built-in formats.
type Registry struct {
	mu      sync.RWMutex
	formats map[string]Format
	user    []string // names registered by users, in order
	builtin []string // built-in names, in order
}

var defaultRegistry = sync.OnceValue(func() *Registry {
	r := &Registry{formats: map[string]Format{}}
	for _, b := range []struct {
		name string
		f    Format
	}{
		{"recordio", RecordIO()},
		{"tfrecord", TFRecord()},
		{"wds", WDS()},
		{"idx", idxFormat(nil)},
		{"parquet", Parquet()},
		{"csv", CSV(defaultMaxLineBytes)},
		{"lst", lstFormat(nil)},
		{"meanimg", meanImageFormat(nil)},
		{"image", imageFormat(nil)},
	} {
		r.formats[b.name] = b.f
		r.builtin = append(r.builtin, b.name)
	}
	return r
})

// Default returns the default registry, which holds the built-in formats
// (recordio, tfrecord, wds, idx, parquet, csv, lst, meanimg, image). It
// is built on the first call.
func Default() *Registry { return defaultRegistry() }

// Register adds f under name, replacing a format of that name (a built-in
// one keeps its place in detection order). It panics if name is not a
// valid tag (two or more of a-z, 0-9, '_', '-') or f.Open is nil.
func (r *Registry) Register(name string, f Format) {
	if !validTag(name) {
		panic(fmt.Sprintf("format: Register: %q is not a valid format name (two or more of a-z, 0-9, '_', '-')", name))
	}
	if f.Open == nil {
		panic("format: Register: " + name + " has a nil Open")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.formats == nil {
		r.formats = map[string]Format{}
	}
	if _, ok := r.formats[name]; !ok {
		r.user = append(r.user, name)
	}
	r.formats[name] = f
}

// Lookup returns the format registered under name.
func (r *Registry) Lookup(name string) (Format, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.formats[name]
	return f, ok
}

// Names returns the registered names in detection order: user formats in
// the order they were registered, then the built-in ones.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Concat(r.user, r.builtin)
}

// validTag reports whether s can be a format's name and tag.
func validTag(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
