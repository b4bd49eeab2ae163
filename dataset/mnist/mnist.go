package mnist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/samber/lo"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// The size of an MNIST image.
const (
	Rows   = 28
	Cols   = 28
	Pixels = Rows * Cols
)

// The magic numbers of MNIST's files.
const (
	ImagesMagic = 0x00000803 // ubyte, 3 dimensions (N, 28, 28)
	LabelsMagic = 0x00000801 // ubyte, 1 dimension (N)
)

// Sample is one MNIST image with its label. It holds no pointers: passing
// it by value allocates nothing, and a pass yields samples without any
// allocation per sample.
type Sample struct {
	Image [Pixels]uint8 // row-major pixels, 0 = background, 255 = ink
	Label uint8         // the digit
	Index int           // the sample's position in its file (0-based)
}

// Sum returns the sum of the image's pixel values.
func (s *Sample) Sum() int {
	n := 0
	for _, p := range s.Image {
		n += int(p)
	}
	return n
}

// Dataset reads MNIST samples from an image file and a label file. It is a
// source.Reader[Sample]: every call to All opens the files, reads one pass
// and closes them. It is safe for concurrent passes.
type Dataset struct {
	images, labels []string // candidate paths, the first that exists is used
	cfg            config
	r              source.Reader[Sample]
}

type config struct {
	flat     bool
	scale    Scale
	shuffle  bool
	once     bool // ShuffleOnce: every epoch has the order of epoch 0
	seed     uint64
	shards   int
	shard    int
	prefetch int
	classes  int
	skip     *source.SkipPolicy
	idx      []IDXOption
	storage  []storage.Option
}

// An Option configures a Dataset.
type Option = option.Option[config]

// Flat makes FillImage and ImageShape describe an image as 784 values
// rather than 1x28x28 (MXNet's flat=True).
func Flat() Option { return option.New(func(c *config) { c.flat = true }) }

// Scaling chooses how FillImage converts pixel bytes (default ScaleUnit,
// x/255; MXNet's MNISTIter uses x/256, ScaleMXNet).
func Scaling(s Scale) Option {
	s.table() // panics on an unknown scale
	return option.New(func(c *config) { c.scale = s })
}

// Shuffle yields every pass in a random order drawn from (seed, epoch):
// epochs differ and runs repeat. The pass reads its samples into memory
// (785 bytes each, 47 MB for the training set) before it yields the first.
// Unlike MXNet, which shuffles once, every epoch gets a new order; see
// [ShuffleOnce] for MXNet's behaviour.
func Shuffle(seed uint64) Option {
	return option.New(func(c *config) { c.shuffle, c.once, c.seed = true, false, seed })
}

// ShuffleOnce yields every pass in the same random order, drawn from seed
// alone: MXNet's MNISTIter shuffle (on by default there, with seed 0),
// which shuffles the samples once when it loads them, so that every reset
// repeats that order. The order is the one [Shuffle] with the same seed
// gives its first epoch. As with Shuffle, a pass reads its samples (of its
// shard) into memory before it yields the first; the last of Shuffle and
// ShuffleOnce given wins. Prefer Shuffle for training: a new order every
// epoch is what SGD expects, and ShuffleOnce is there to reproduce MXNet.
func ShuffleOnce(seed uint64) Option {
	return option.New(func(c *config) { c.shuffle, c.once, c.seed = true, true, seed })
}

// NoShuffle yields every pass in the files' order, undoing an earlier
// Shuffle or ShuffleOnce: MXNet's shuffle=False, for [MNISTIter], which
// shuffles by default.
func NoShuffle() Option {
	return option.New(func(c *config) { c.shuffle, c.once = false, false })
}

// Shard makes the dataset read only shard index of count, for
// data-parallel training. Shards are contiguous ranges of the files, as
// MXNet's num_parts / part_index are: shard i of a file of n samples holds
// the samples [n*i/count, n*(i+1)/count). Every sample is in exactly one
// shard, and shard sizes differ by at most one. A pass reads only up to
// the end of its shard, so it checks the files' headers and its own range,
// not the data after it (the last shard checks the files' ends). Shard
// panics if count < 1 or index is not in [0, count).
func Shard(count, index int) Option {
	if count < 1 || index < 0 || index >= count {
		panic(fmt.Sprintf("mnist: Shard(%d, %d): need count >= 1 and 0 <= index < count", count, index))
	}
	return option.New(func(c *config) { c.shards, c.shard = count, index })
}

// Prefetch reads up to n samples ahead of the consumer in a goroutine of
// the pass (stage.Buffered). Prefetch panics if n < 1.
func Prefetch(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("mnist: Prefetch(%d): need n >= 1", n))
	}
	return option.New(func(c *config) { c.prefetch = n })
}

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

// SkipBad makes a pass skip bad records, while they are at most maxFraction
// of the pass's records, instead of failing at the first one; see
// [source.SkipBad], whose options it takes. A bad record of MNIST is a
// sample whose label is not below [Classes]. Damage to the files'
// structure is never skipped, because no record after it can be trusted:
// a truncated or corrupt file, a wrong magic number, a bad header, image
// and label files whose counts differ, data after the last record. The
// default skips nothing: the first bad label ends the pass with a
// [FormatError] naming the label file, the offset and the record. SkipBad
// panics when maxFraction is not in [0, 1].
func SkipBad(maxFraction float64, opts ...source.SkipOption) Option {
	p := source.SkipBad(maxFraction, opts...)
	return option.New(func(c *config) { c.skip = p })
}

// OnBad is SkipBad with a policy made by the caller, which several readers
// may share (its count is then the sum of theirs). A nil policy is the
// default: fail at the first bad record.
func OnBad(p *source.SkipPolicy) Option {
	return option.New(func(c *config) { c.skip = p })
}

// WithIDX passes options to the readers of both files, for example larger
// [MaxFileBytes] for a gzipped data set beyond its default. The dataset
// gives the readers the files' sizes itself.
func WithIDX(opts ...IDXOption) Option {
	opts = slices.Clone(opts)
	return option.New(func(c *config) { c.idx = append(c.idx, opts...) })
}

// Storage sets the options of package storage through which remote files
// are opened. The paths given to [New], and the directory given to
// [Train] and [Test], may be s3://bucket/key objects or http(s):// URLs
// (see [storage.Open]); opts say how to reach them (endpoint, credentials,
// retries, read-ahead, a cache). Without it, URLs are opened with
// storage's defaults. A remote file is read from its start with storage's
// read-ahead, gzip recognised from its bytes as for a local file, and its
// size bounds the header as a local file's does. The decoded-file cache
// ([SetCacheBytes]) keys a remote file by its URL, size and ETag. Storage
// errors name the URL and the byte range; local paths are opened with
// os.Open, as without it.
func Storage(opts ...storage.Option) Option {
	opts = slices.Clone(opts)
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// New returns a dataset of the images in imagesPath (magic 0x00000803,
// N x 28 x 28 bytes) and the labels in labelsPath (magic 0x00000801, N
// bytes). Either file may be gzipped. Either may be a URL (see [Storage]).
func New(imagesPath, labelsPath string, opts ...Option) *Dataset {
	return newDataset([]string{imagesPath}, []string{labelsPath}, opts)
}

// MXNetBatchSize is the batch size MXNet's MNISTIter uses by default
// (batch_size=128).
const MXNetBatchSize = 128

// MNISTIter returns a dataset of imagesPath and labelsPath with the
// defaults of MXNet's MNISTIter: shuffle=True with seed=0 ([ShuffleOnce](0):
// one order, repeated every epoch) and pixels scaled by 1/256
// ([Scaling](ScaleMXNet)); opts come after them, so Shuffle(seed),
// ShuffleOnce(seed), Scaling and Flat override them as MNISTIter's seed,
// shuffle and flat parameters do. The order is tensorfeed's permutation
// for the seed, not MXNet's own. MNISTIter yields only full batches of
// batch_size and drops the rest of an epoch; the same batches come from
//
//	sink.Tensorize(ds, ds.Sink(mnist.MXNetBatchSize), batch.Drop)
func MNISTIter(imagesPath, labelsPath string, opts ...Option) *Dataset {
	return New(imagesPath, labelsPath, slices.Concat([]Option{ShuffleOnce(0), Scaling(ScaleMXNet)}, opts)...)
}

// Train returns the training set in dir, found by its standard names:
// train-images-idx3-ubyte and train-labels-idx1-ubyte, or the same names
// with ".gz", or with a dot before "idx" (train-images.idx3-ubyte). The
// files are looked for when a pass starts, in that order. dir may be a URL
// prefix (s3://bucket/mnist, https://host/mnist; see [Storage]), to which
// "/" and the names are appended: a candidate the server does not have
// (storage.ErrNotFound) is skipped as a missing local file is.
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
	d := &Dataset{images: images, labels: labels, cfg: config{shards: 1, classes: 10}}
	option.Apply(&d.cfg, opts)
	d.r = newReader(d, "samples", d.pass)
	if d.cfg.prefetch > 0 {
		d.r = stage.Buffered(d.r, d.cfg.prefetch)
	}
	return d
}

// All starts a pass over the dataset (or its shard). The pass logs through
// tensorfeed.Logger(ctx): one debug entry when it starts, and a warning for
// each record a bad-record policy skips.
func (d *Dataset) All(ctx context.Context) iter.Seq2[Sample, error] { return d.r.All(ctx) }

var _ source.SkipCounted = (*Dataset)(nil)

// Skipped returns how many bad records the dataset's passes have skipped
// under [SkipBad] or [OnBad], over all passes (and, for a shared policy,
// all readers that share it). It is 0 under the default policy.
func (d *Dataset) Skipped() int64 { return d.cfg.skip.Skipped() }

// ImageShape returns the shape of one image as FillImage writes it: [784]
// with Flat, else [1, 28, 28] (channel, height, width, as MXNet).
func (d *Dataset) ImageShape() []int {
	if d.cfg.flat {
		return []int{Pixels}
	}
	return []int{1, Rows, Cols}
}

// FillImage writes the sample's pixels, scaled as the Scaling option says,
// into dst (at least 784 values). It is the fill function of a float32
// data field of a sink.
func (d *Dataset) FillImage(s Sample, dst []float32) { d.cfg.scale.Pixels(s.Image[:], dst) }

// ImageField returns a float32 sink field named name that holds the
// images as FillImage writes them, of shape ImageShape. It is marked
// WritesAll (FillImage sets every element of its row), so a sink writes
// each recycled batch once instead of clearing it first:
//
//	sink.New(128, []sink.Field[mnist.Sample]{train.ImageField("image")}, labels)
func (d *Dataset) ImageField(name string) sink.Field[Sample] {
	return sink.Float32(name, d.ImageShape(), d.FillImage).WritesAll()
}

// FillLabel writes the sample's label into dst[0] as a float32 (MXNet's
// softmax_label).
func FillLabel(s Sample, dst []float32) { dst[0] = float32(s.Label) }

// FillLabelInt32 writes the sample's label into dst[0].
func FillLabelInt32(s Sample, dst []int32) { dst[0] = int32(s.Label) }

// Sink returns a sink for batches of up to batchSize samples with the
// tensors MXNet's MNISTIter provides: "data", float32 of ImageShape scaled
// as the Scaling option says, and "softmax_label", the float32 digit (one
// value per sample, so the tensor's shape is [batch]).
func (d *Dataset) Sink(batchSize int) *sink.Sink[Sample] {
	return sink.New(batchSize,
		[]sink.Field[Sample]{d.ImageField("data")},
		[]sink.Field[Sample]{sink.Float32("softmax_label", nil, FillLabel).WritesAll()})
}

// Len returns the number of samples a pass yields (of this shard). It reads
// the files' headers.
func (d *Dataset) Len() (int, error) {
	f, err := d.open()
	if err != nil {
		return 0, err
	}
	defer f.close()
	start, end := d.cfg.shardRange(f.n)
	return end - start, nil
}

func (c *config) shardRange(n int) (start, end int) {
	return n * c.shard / c.shards, n * (c.shard + 1) / c.shards
}

// files is a pair of open, checked image and label files.
type files struct {
	img, lab   *IDXReader
	imgF, labF *idxFile
	n          int
}

func (f *files) close() {
	f.imgF.Close()
	f.labF.Close()
}

// idxFile is an open IDX file, read from its start: a local file, or a
// remote object read through package storage with read-ahead.
type idxFile struct {
	io.Reader
	name string
	size int64           // -1 when unknown (a local file that is not regular)
	os   *os.File        // a local file, else nil
	obj  *storage.Object // a remote object, else nil
	rd   *storage.Reader
}

// Name returns the path or URL the file was opened with.
func (f *idxFile) Name() string { return f.name }

// Close closes the file (and stops a remote file's read-ahead).
func (f *idxFile) Close() error {
	if f.os != nil {
		return f.os.Close()
	}
	f.rd.Close()
	return f.obj.Close()
}

// openIDXFile opens a local path with os.Open, so that its errors read as
// they always have, and a URL through package storage with sopts; ctx
// bounds a remote file's requests until it is closed.
func openIDXFile(ctx context.Context, name string, sopts []storage.Option) (*idxFile, error) {
	if !storage.IsRemote(name) {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		size := st.Size()
		if !st.Mode().IsRegular() {
			size = -1
		}
		return &idxFile{Reader: f, name: name, size: size, os: f}, nil
	}
	obj, err := storage.Open(ctx, name, sopts...)
	if err != nil {
		return nil, err
	}
	rd := obj.Reader(ctx)
	return &idxFile{Reader: rd, name: name, size: obj.Size(), obj: obj, rd: rd}, nil
}

// openFirst opens the first of the candidate paths that exists: a missing
// local file (fs.ErrNotExist) or remote object (storage.ErrNotFound) is
// passed over while another candidate is left.
func openFirst(ctx context.Context, paths []string, sopts []storage.Option) (*idxFile, error) {
	var last error
	for _, p := range paths {
		f, err := openIDXFile(ctx, p, sopts)
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

// open opens both files, reads their headers and checks that they are MNIST
// images and labels of the same count. It is openContext without a
// context.
func (d *Dataset) open() (*files, error) { return d.openContext(context.Background()) }

// openContext is open with a context that bounds the requests of remote
// files until they are closed.
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
	if err := f.check(d.cfg.idx); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

func (f *files) check(opts []IDXOption) error {
	var err error
	if f.img, err = openIDX(f.imgF, opts); err != nil {
		return err
	}
	if f.lab, err = openIDX(f.labF, opts); err != nil {
		return err
	}
	ih, lh := f.img.Header(), f.lab.Header()
	if m := ih.Magic(); m != ImagesMagic {
		return &FormatError{File: f.img.Name(), Record: -1, Msg: fmt.Sprintf("magic 0x%08x is not MNIST images (0x%08x)", m, ImagesMagic)}
	}
	if ih.Dims[1] != Rows || ih.Dims[2] != Cols {
		return &FormatError{File: f.img.Name(), Record: -1, Offset: 8, Msg: fmt.Sprintf("images of %dx%d, not %dx%d", ih.Dims[1], ih.Dims[2], Rows, Cols)}
	}
	if m := lh.Magic(); m != LabelsMagic {
		return &FormatError{File: f.lab.Name(), Record: -1, Msg: fmt.Sprintf("magic 0x%08x is not MNIST labels (0x%08x)", m, LabelsMagic)}
	}
	if ih.Dims[0] != lh.Dims[0] {
		return &FormatError{File: f.lab.Name(), Record: -1, Offset: 4, Msg: fmt.Sprintf("%d labels for %d images in %s", lh.Dims[0], ih.Dims[0], f.img.Name())}
	}
	f.n = ih.Dims[0]
	return nil
}

// openIDX reads the header of the IDX file f, checked against the file's
// size.
func openIDX(f *idxFile, opts []IDXOption) (*IDXReader, error) {
	return NewIDXReader(f, f.Name(), withSize(f.size, opts)...)
}

// checkEvery is how many samples a pass yields between looks at its
// context.
const checkEvery = 256

// pass is one pass of the samples; from is the position in the epoch's
// order where it starts, 0 unless the pass is shuffled (see resumes).
func (d *Dataset) pass(ctx context.Context, epochs *source.Epochs, from int) iter.Seq2[Sample, error] {
	return func(yield func(Sample, error) bool) {
		ctx, ep := epochs.Start(ctx)
		log := tensorfeed.Logger(ctx)
		f, err := d.openContext(ctx)
		if err != nil {
			yield(Sample{}, err)
			return
		}
		defer f.close()
		start, end := d.cfg.shardRange(f.n)
		if ce := log.Check(zap.DebugLevel, "mnist pass"); ce != nil {
			ce.Write(zap.String("images", f.img.Name()), zap.String("labels", f.lab.Name()),
				zap.Int("epoch", ep), zap.Int("start", start), zap.Int("end", end),
				zap.Bool("gzip", f.img.Gzipped()), zap.Bool("shuffle", d.cfg.shuffle), zap.Bool("shuffle_once", d.cfg.once))
		}
		if err := f.img.Skip(start); err != nil {
			yield(Sample{}, err)
			return
		}
		if err := f.lab.Skip(start); err != nil {
			yield(Sample{}, err)
			return
		}
		if d.cfg.shuffle {
			d.shuffled(ctx, log, f, start, end, ep, from, yield)
			return
		}
		cnt := d.cfg.skip.Pass(int64(end-start), log)
		done := ctx.Done()
		var s Sample
		var lab [1]byte
		for i := start; i < end; i++ {
			if done != nil && (i-start)%checkEvery == 0 {
				select {
				case <-done:
					yield(Sample{}, ctx.Err())
					return
				default:
				}
			}
			if err := f.img.ReadRaw(s.Image[:]); err != nil {
				yield(Sample{}, err)
				return
			}
			off := f.lab.Offset()
			if err := f.lab.ReadRaw(lab[:]); err != nil {
				yield(Sample{}, err)
				return
			}
			if bad := d.badLabel(f, i, off, lab[0]); bad != nil {
				if err := cnt.Bad(bad); err != nil {
					yield(Sample{}, err)
					return
				}
				continue
			}
			cnt.Good()
			s.Label, s.Index = lab[0], i
			if !yield(s, nil) {
				return
			}
		}
		if end == f.n {
			if err := checkEnds(f); err != nil {
				yield(Sample{}, err)
				return
			}
		}
		if err := cnt.End(); err != nil {
			yield(Sample{}, err)
		}
	}
}

// badLabel returns the error of a sample whose label, read at offset off of
// the label file, names no class, or nil for a good label.
func (d *Dataset) badLabel(f *files, i int, off int64, label uint8) error {
	if int(label) < d.cfg.classes {
		return nil
	}
	return &FormatError{File: f.lab.Name(), Offset: off, Record: i,
		Msg: fmt.Sprintf("record %d: label %d is not below %d (Classes)", i, label, d.cfg.classes)}
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

// blockSamples is how many images a shuffled pass allocates at a time
// (3 MiB).
const blockSamples = 4096

// shuffled yields samples [start, end) in an order drawn from (seed,
// epoch), or from (seed, 0) under ShuffleOnce. It reads them all into
// memory first, or takes them from the decoded-file cache (see
// [SetCacheBytes]) when the pass covers the whole files.
func (d *Dataset) shuffled(ctx context.Context, log *zap.Logger, f *files, start, end, ep, from int, yield func(Sample, error) bool) {
	dec, err := decodedOf(f, start, end, d.cfg.idx)
	if err != nil {
		yield(Sample{}, err)
		return
	}
	var s Sample
	d.inMemory(ctx, log, dec, start, ep, from, func(j int) bool {
		copy(s.Image[:], dec.image(j))
		s.Label, s.Index = dec.labels[j], start+j
		return yield(s, nil)
	}, func(err error) { yield(Sample{}, err) })
}

// decodedOf returns samples [start, end) of f (whose readers are at
// start) in memory: from the decoded-file cache when they are the whole
// files and the cache holds them, else read (and kept in the cache when
// they are the whole files).
func decodedOf(f *files, start, end int, idx []IDXOption) (*decoded, error) {
	var key cacheKey
	useCache := start == 0 && end == f.n && cache.max.Load() > 0
	if useCache {
		var err error
		if key, useCache, err = keyOf(f, newIDXConfig(idx)); err != nil {
			return nil, err
		}
	}
	if useCache {
		if dec := cache.get(key); dec != nil {
			return dec, nil
		}
	}
	dec, err := readDecoded(f, end-start, end == f.n)
	if err != nil {
		return nil, err
	}
	if useCache {
		cache.put(key, dec)
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
	if !f.lab.sized {
		firstLab = min(n, growStep)
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

// inMemory checks the labels of dec, whose first sample is sample start
// of the files, under the bad-record policy, and calls yield with the
// index in dec of every good sample, in the order of the epoch when the
// dataset shuffles, else in the files' order, while yield returns true.
// A failure (too many bad records, cancellation) goes to fail.
func (d *Dataset) inMemory(ctx context.Context, log *zap.Logger, dec *decoded, start, ep, from int, yield func(j int) bool, fail func(error)) {
	n := dec.n()
	cnt := d.cfg.skip.Pass(int64(n), log)
	var good []int // the indices of the good samples, once one is bad
	for i, l := range dec.labels {
		if int(l) < d.cfg.classes {
			cnt.Good()
			if good != nil {
				good = append(good, i)
			}
			continue
		}
		bad := &FormatError{File: dec.labName, Offset: labelsHeader + int64(start+i), Record: start + i,
			Msg: fmt.Sprintf("record %d: label %d is not below %d (Classes)", start+i, l, d.cfg.classes)}
		if err := cnt.Bad(bad); err != nil {
			fail(err)
			return
		}
		if good == nil {
			good = make([]int, i, i+1)
			for j := range good {
				good[j] = j
			}
		}
	}
	if err := cnt.End(); err != nil {
		fail(err)
		return
	}
	m := n
	if good != nil {
		m = len(good)
	}
	var perm []int
	if d.cfg.shuffle {
		if d.cfg.once {
			ep = 0
		}
		perm = source.NewRand(d.cfg.seed, ep, -1).Perm(m)
	}
	done := ctx.Done()
	var touch uint8
	for k := from; k < m; k++ {
		if done != nil && (k-from)%checkEvery == 0 {
			select {
			case <-done:
				fail(ctx.Err())
				return
			default:
			}
		}
		j := k
		if perm != nil {
			j = perm[k]
			if a := k + touchAhead; a < m {
				touch = dec.touch(at(perm[a], good), touch)
			}
		}
		if good != nil {
			j = good[j]
		}
		if !yield(j) {
			return
		}
	}
	touched.Store(uint32(touch))
}

// at returns the index in the data set of the good sample i.
func at(i int, good []int) int {
	if good != nil {
		return good[i]
	}
	return i
}

// touchAhead is how many positions of a shuffled order ahead of the
// sample it yields a pass reads one byte of each cache line of an image,
// so that the memory fetches the image while the pass and the stages
// after it work on earlier samples: a shuffled order reads the data set at
// random, which the processor cannot predict, and an image whose lines
// are already on their way costs one memory latency instead of several.
const touchAhead = 16

// touched keeps the sum of the bytes a pass touched, so that the reads
// are not optimised away.
var touched atomic.Uint32

// labelsHeader is the size of an MNIST label file's header: the offset of
// its first label.
const labelsHeader = 8
