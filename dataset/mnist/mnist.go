package mnist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samber/lo"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// The size of an MNIST image.
const (
	Rows   = 28
	Cols   = 28
	Pixels = Rows * Cols
)

// Sample is one MNIST digit: its image, label and position in the files.
// Its struct tags make it a sample for sink.Of: sink.Of[mnist.Sample](128)
// gives an "image" tensor of float32 [128 784] in [0, 1] and a "label"
// tensor of int32 [128]; sink.Scale("image", -1, 1) maps the pixels to
// [-1, 1] instead.
//
// A Sample is 24 bytes: the image is a pointer. The image of a sample of
// a [Table] is the table's (and, through the decoded-file cache, shared by
// every table of the same files): read it, never change it; copy it
// (img := *s.Image) to change one. A pass of [Dataset.All] gives each
// sample an image of its own.
type Sample struct {
	Image *[Pixels]uint8 `tensor:"image,float32"`     // row-major pixels, 0 = background, 255 = ink; shared, read-only
	Label uint8          `tensor:"label,label,int32"` // the digit
	Index int            // the sample's position in its files (0-based)
}

// Dataset is an MNIST pair of image and label files and how to read them.
// [Dataset.Load] decodes them into a [Table], the random-access set to
// read with source.ReadIndexed (in order, shuffled by index, split over
// ranks) and to resume anywhere directly; the Dataset itself is a
// source.Reader of the files in their order, one record at a time, for
// sets that are not to be held in memory. It has no shuffle, shard or
// prefetch of its own: those are source.ReadIndexed's (ShuffleIndex,
// ShardIndex) and the pipeline's. It is safe for concurrent passes.
type Dataset struct {
	images, labels []string // candidate paths, the first that exists is used
	cfg            config
	epochs         *source.Epochs
	from           int // the record a pass starts at (Resume)
}

type config struct {
	classes int
	skip    *source.SkipPolicy
	maxFile int64 // the IDX readers' MaxFileBytes
	storage []storage.Option
}

// idxOptions returns the options of the IDX readers of both files.
func (c *config) idxOptions() []idx.Option { return []idx.Option{idx.MaxFileBytes(c.maxFile)} }

// An Option configures a Dataset.
type Option = option.Option[config]

// Classes sets how many classes the labels name: a label must be below n
// (default 10, the digits). A label outside the range is a bad record: it
// would index past the end of a model's output. Set Classes(62) for
// EMNIST's ByClass split, whose files are read alike. Classes panics if n
// is not in [1, 256].
func Classes(n int) Option {
	if n < 1 || n > 256 {
		panic(fmt.Sprintf("mnist: Classes(%d): need 1 <= n <= 256", n))
	}
	return option.New(func(c *config) { c.classes = n })
}

// OnBad makes a pass (and Load) skip bad records under the policy p
// (source.SkipBad(maxFraction, ...)) instead of failing at the first one;
// several readers may share a policy (its count is then the sum of
// theirs). A bad record of MNIST is a sample whose label is not below
// [Classes]. Damage to the files' structure is never skipped, because no
// record after it can be trusted: a truncated or corrupt file, a wrong
// magic number, a bad header, image and label files whose counts differ,
// data after the last record. A nil policy is the default: the first bad
// label ends the pass with an error naming the label file, the offset and
// the record.
func OnBad(p *source.SkipPolicy) Option {
	return option.New(func(c *config) { c.skip = p })
}

// MaxFileBytes sets the largest data size of either file (all elements,
// after gzip decompression, without the header) that its header may
// declare; the default, 1 GiB, holds every IDX data set in common use
// (MNIST's training images are 47 MB, EMNIST's largest file 550 MB). A
// larger declaration is an error wrapping [ErrTooLarge], reported before
// anything is allocated for it; a gzip stream's decompressed size is known
// only as it is read, and the limit bounds the memory and work a gzip
// bomb can cost. MaxFileBytes panics if n < 1.
func MaxFileBytes(n int64) Option {
	if n < 1 {
		panic(fmt.Sprintf("mnist: MaxFileBytes(%d): need n >= 1", n))
	}
	return option.New(func(c *config) { c.maxFile = n })
}

// Storage sets the options of package storage through which remote files
// are opened. The paths given to [New], and the directory given to
// [Train] and [Test], may be s3://bucket/key objects or http(s):// URLs
// (see [storage.Open]); opts say how to reach them (endpoint, credentials,
// retries, read-ahead, a cache). Without it, URLs are opened with
// storage's defaults. A remote file is read from its start with storage's
// read-ahead, gzip recognised from its bytes as for a local file, and its
// size bounds the header as a local file's does. The decoded-file cache
// of [Dataset.Load] keys a remote file by its URL, size and ETag. Storage
// errors name the URL and the byte range; local paths are opened with
// os.Open, as without it.
func Storage(opts ...storage.Option) Option {
	opts = slices.Clone(opts)
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// New returns the dataset of the images in imagesPath (magic 0x00000803,
// N x 28 x 28 bytes) and the labels in labelsPath (magic 0x00000801, N
// bytes). Either file may be gzipped. Either may be a URL (see [Storage]).
func New(imagesPath, labelsPath string, opts ...Option) *Dataset {
	return newDataset([]string{imagesPath}, []string{labelsPath}, opts)
}

// Train returns the training set in dir, found by its standard names:
// train-images-idx3-ubyte and train-labels-idx1-ubyte, or the same names
// with ".gz", or with a dot before "idx" (train-images.idx3-ubyte). The
// files are looked for when they are read, in that order. dir may be a URL
// prefix (s3://bucket/mnist, https://host/mnist; see [Storage]), to which
// "/" and the names are appended: a candidate the server does not have
// (storage.ErrNotFound) is skipped as a missing local file is.
//
//	train, err := mnist.Train("data/mnist").Load(ctx)
func Train(dir string, opts ...Option) *Dataset {
	return newDataset(candidates(dir, "train-images", "idx3-ubyte"), candidates(dir, "train-labels", "idx1-ubyte"), opts)
}

// Test returns the test set in dir (t10k-images-idx3-ubyte and
// t10k-labels-idx1-ubyte, with the same variants as Train).
func Test(dir string, opts ...Option) *Dataset {
	return newDataset(candidates(dir, "t10k-images", "idx3-ubyte"), candidates(dir, "t10k-labels", "idx1-ubyte"), opts)
}

func candidates(dir, stem, ext string) []string {
	join := filepath.Join
	if storage.IsRemote(dir) {
		join = func(elem ...string) string { return strings.TrimSuffix(elem[0], "/") + "/" + elem[1] }
	}
	return lo.FlatMap([]string{"-", "."}, func(sep string, _ int) []string {
		n := join(dir, stem+sep+ext)
		return []string{n, n + ".gz"}
	})
}

func newDataset(images, labels []string, opts []Option) *Dataset {
	d := &Dataset{images: images, labels: labels, cfg: config{classes: 10, maxFile: idx.DefaultMaxFileBytes}, epochs: new(source.Epochs)}
	option.Apply(&d.cfg, opts)
	return d
}

// All starts a pass over the files in their order, one record at a time:
// it holds one image at a time, not the set, and gives each sample an
// image of its own. The pass logs through tensorfeed.Logger(ctx): one
// debug entry when it starts, and a warning for each record a bad-record
// policy skips. For a shuffled or sharded pass, read the [Table] of
// [Dataset.Load] with source.ReadIndexed.
func (d *Dataset) All(ctx context.Context) iter.Seq2[Sample, error] { return d.pass(ctx) }

var (
	_ source.SkipCounted       = (*Dataset)(nil)
	_ source.Resumable[Sample] = (*Dataset)(nil)
	_ source.Identifier        = (*Dataset)(nil)
)

// Skipped returns how many bad records the dataset's passes and loads have
// skipped under [OnBad], over all of them (and, for a shared
// policy, all readers that share it). It is 0 under the default policy.
func (d *Dataset) Skipped() int64 { return d.cfg.skip.Skipped() }

// files is a pair of open, checked image and label files.
type files struct {
	img, lab   *idx.Reader
	imgF, labF *idx.Input
	n          int
}

func (f *files) close() {
	f.imgF.Close()
	f.labF.Close()
}

// openFirst opens the first of the candidate paths that exists: a missing
// local file (fs.ErrNotExist) or remote object (storage.ErrNotFound) is
// passed over while another candidate is left.
func openFirst(ctx context.Context, paths []string, sopts []storage.Option) (*idx.Input, error) {
	var last error
	for _, p := range paths {
		f, err := idx.Open(ctx, p, sopts)
		if err == nil {
			return f, nil
		}
		if len(paths) == 1 || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
		last = err
	}
	if errors.Is(last, storage.ErrNotFound) {
		return nil, fmt.Errorf("mnist: none of %q: %w", paths, last)
	}
	return nil, fmt.Errorf("mnist: none of %q: %w", paths, fs.ErrNotExist)
}

// openContext opens both files, reads their headers and checks that they
// are MNIST images and labels of the same count; ctx bounds the requests of
// remote files until they are closed.
func (d *Dataset) openContext(ctx context.Context) (*files, error) {
	imgF, err := openFirst(ctx, d.images, d.cfg.storage)
	if err != nil {
		return nil, err
	}
	labF, err := openFirst(ctx, d.labels, d.cfg.storage)
	if err != nil {
		imgF.Close()
		return nil, err
	}
	f := &files{imgF: imgF, labF: labF}
	if err := f.check(d.cfg.idxOptions()); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

func (f *files) check(opts []idx.Option) error {
	var err error
	if f.img, err = openIDX(f.imgF, opts); err != nil {
		return err
	}
	if f.lab, err = openIDX(f.labF, opts); err != nil {
		return err
	}
	ih, lh := f.img.Header(), f.lab.Header()
	if m := ih.Magic(); m != idx.ImagesMagic {
		return idx.Fail(f.img.Name(), 0, -1, fmt.Sprintf("magic 0x%08x is not MNIST images (0x%08x)", m, idx.ImagesMagic), nil)
	}
	if ih.Dims[1] != Rows || ih.Dims[2] != Cols {
		return idx.Fail(f.img.Name(), 8, -1, fmt.Sprintf("images of %dx%d, not %dx%d", ih.Dims[1], ih.Dims[2], Rows, Cols), nil)
	}
	if m := lh.Magic(); m != idx.LabelsMagic {
		return idx.Fail(f.lab.Name(), 0, -1, fmt.Sprintf("magic 0x%08x is not MNIST labels (0x%08x)", m, idx.LabelsMagic), nil)
	}
	if ih.Dims[0] != lh.Dims[0] {
		return idx.Fail(f.lab.Name(), 4, -1, fmt.Sprintf("%d labels for %d images in %s", lh.Dims[0], ih.Dims[0], f.img.Name()), nil)
	}
	f.n = ih.Dims[0]
	return nil
}

// openIDX reads the header of the IDX file f, checked against the file's
// size.
func openIDX(f *idx.Input, opts []idx.Option) (*idx.Reader, error) {
	return idx.NewReader(f, f.Name, idx.WithSize(f.Size, opts)...)
}

// checkEvery is how many samples a pass yields between looks at its
// context.
const checkEvery = 256

// pass is one pass of the files in their order, from record d.from.
func (d *Dataset) pass(ctx context.Context) iter.Seq2[Sample, error] {
	return func(yield func(Sample, error) bool) {
		ctx, ep := d.epochs.Start(ctx)
		log := tensorfeed.Logger(ctx)
		f, err := d.openContext(ctx)
		if err != nil {
			yield(Sample{}, err)
			return
		}
		defer f.close()
		start := min(d.from, f.n)
		if ce := log.Check(zap.DebugLevel, "mnist pass"); ce != nil {
			ce.Write(zap.String("images", f.img.Name()), zap.String("labels", f.lab.Name()),
				zap.Int("epoch", ep), zap.Int("start", start), zap.Int("end", f.n), zap.Bool("gzip", f.img.Gzipped()))
		}
		// Resume skips the records before its position, without
		// yielding them (a plain file's bytes are read past, a gzipped
		// one's decompressed).
		if err := f.img.Skip(start); err != nil {
			yield(Sample{}, err)
			return
		}
		if err := f.lab.Skip(start); err != nil {
			yield(Sample{}, err)
			return
		}
		cnt := (*skipcount.Policy)(d.cfg.skip).Pass(int64(f.n-start), log)
		done := ctx.Done()
		var lab [1]byte
		for i := start; i < f.n; i++ {
			if done != nil && (i-start)%checkEvery == 0 {
				select {
				case <-done:
					yield(Sample{}, ctx.Err())
					return
				default:
				}
			}
			img := new([Pixels]uint8) // the sample's own: a consumer may keep it
			if err := f.img.ReadRaw(img[:]); err != nil {
				yield(Sample{}, err)
				return
			}
			off := f.lab.Offset()
			if err := f.lab.ReadRaw(lab[:]); err != nil {
				yield(Sample{}, err)
				return
			}
			if bad := d.badLabel(f.lab.Name(), i, off, lab[0]); bad != nil {
				if err := cnt.Bad(bad); err != nil {
					yield(Sample{}, err)
					return
				}
				continue
			}
			cnt.Good()
			if !yield(Sample{Image: img, Label: lab[0], Index: i}, nil) {
				return
			}
		}
		if err := checkEnds(f); err != nil {
			yield(Sample{}, err)
			return
		}
		if err := cnt.End(); err != nil {
			yield(Sample{}, err)
		}
	}
}

// badLabel returns the error of sample i whose label, read at offset off
// of the label file, names no class, or nil for a good label.
func (d *Dataset) badLabel(file string, i int, off int64, label uint8) error {
	if int(label) < d.cfg.classes {
		return nil
	}
	return &tensorfeed.Error{Path: file, Offset: off, Record: int64(i),
		Err: cause.New(ErrFormat, nil, fmt.Sprintf("label %d is not below %d (Classes)", label, d.cfg.classes))}
}

// checkEnds reports an error when either file has data after its last
// record, or a gzip stream whose end is bad.
func checkEnds(f *files) error {
	if err := f.img.ReadRaw(nil); err != io.EOF {
		return err
	}
	if err := f.lab.ReadRaw(nil); err != io.EOF {
		return err
	}
	return nil
}

// blockSamples is how many images a decoded set allocates at a time
// (3 MiB).
const blockSamples = 4096

// decodedOf returns the samples of f (whose readers are at their first
// record) in memory: from the decoded-file cache when it holds them, else
// read (and kept in the cache).
func decodedOf(f *files, maxFile int64) (*decoded, error) {
	key, useCache, err := keyOf(f, maxFile)
	if err != nil {
		return nil, err
	}
	useCache = useCache && idx.CacheOn()
	if useCache {
		if dec, ok := idx.CacheGet(key); ok {
			return dec.(*decoded), nil
		}
	}
	dec, err := readDecoded(f, f.n, true)
	if err != nil {
		return nil, err
	}
	if useCache {
		idx.CachePut(key, dec, dec.bytes())
	}
	return dec, nil
}

// readDecoded reads the next n images and labels of f into memory, and
// checks the files' ends when checkEnd is set.
func readDecoded(f *files, n int, checkEnd bool) (*decoded, error) {
	dec := &decoded{labName: f.lab.Name()}
	// Images are kept in blocks of blockSamples, allocated as the images
	// arrive: a header that claims more than the stream holds costs at
	// most one block, and nothing is copied as the pass grows.
	for i := range n {
		if i%blockSamples == 0 {
			dec.images = append(dec.images, make([]byte, min(blockSamples, n-i)*Pixels))
		}
		at := i % blockSamples * Pixels
		if err := f.img.ReadRaw(dec.images[i/blockSamples][at : at+Pixels]); err != nil {
			return nil, err
		}
	}
	firstLab := n
	if !f.lab.Sized() {
		firstLab = min(n, idx.GrowStep)
	}
	labs := make([]byte, 0, firstLab)
	for range n {
		k := len(labs)
		labs = slices.Grow(labs, 1)[:k+1]
		if err := f.lab.ReadRaw(labs[k:]); err != nil {
			return nil, err
		}
	}
	if checkEnd {
		if err := checkEnds(f); err != nil {
			return nil, err
		}
	}
	dec.labels = slices.Clip(labs)
	return dec, nil
}

// labelsHeader is the size of an MNIST label file's header: the offset of
// its first label.
const labelsHeader = 8
