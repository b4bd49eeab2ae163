package imagerec

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Option configures New, Decode and Augment. Each option names the
// parameter of MXNet's ImageRecordIter it stands for; options that a
// function does not use are ignored by it (New uses all but Channels and
// MaxPixels; Decode uses Decoder, Channels, LabelsFrom, Threads, MaxPixels,
// MaxDecodeBytes and SkipBad; Augment uses Seed, Shuffle's seed and
// Threads).
type Option = option.Option[config]

// cropMode says where the crop of the data shape's size is taken.
type cropMode uint8

const (
	cropCenter cropMode = iota // MXNet's default
	cropRandom                 // rand_crop
	cropFixed                  // crop_x_start, crop_y_start
)

// mirrorMode says whether images are flipped left to right.
type mirrorMode uint8

const (
	mirrorNone   mirrorMode = iota
	mirrorRandom            // rand_mirror
	mirrorAlways            // mirror
)

type config struct {
	// data
	idxPath, listPath    string
	recPaths, idxPaths   []string // the .rec files of the data and their .idx files, if any
	shape                [3]int
	labelWidth           int
	shuffle              bool
	shuffleBuffer        int
	seed                 uint64
	shardCount, shardIdx int
	dataName, labelName  string
	skipBad              *source.SkipPolicy
	labels               *Labels
	// batch
	batchSize int
	last      batch.Policy
	// augmentation
	resize                   int
	crop                     cropMode
	cropX, cropY             int
	minCropSize, maxCropSize int
	mirror                   mirrorMode
	affine                   augment.Affine
	pad                      int
	fill                     uint8
	randomH, randomS         int
	randomL                  int
	interp                   augment.Interp
	norm                     augment.Normalize
	meanImgPath              string // mean_img
	computeMean              bool   // mean_img names no file yet: compute and save it
	// backend
	threads        int
	prefetch       int
	dtype          sample.DType
	decoder        decode.Decoder
	maxDecodeBytes int64
	channels       int // Decode only
	maxPixels      int // Decode only
	storage        []storage.Option
}

// DataShape sets the shape of one output image, channels first (data_shape):
// c is 1 (gray), 3 (RGB) or 4 (RGBA). New requires it.
func DataShape(c, h, w int) Option {
	return option.New(func(cf *config) { cf.shape = [3]int{c, h, w} })
}

// Batch sets the number of images per batch (batch_size). New requires it.
func Batch(size int) Option { return option.New(func(c *config) { c.batchSize = size }) }

// LastBatch sets what happens to a short last batch. The default, batch.Keep,
// yields it short. MXNet's default round_batch=true fills it up with the
// first images of the data, reports them as padding and starts the next
// epoch after them: that is batch.RoundBatch (tensor.Batch.Padded counts
// them); batch.Pad pads the same way but starts every epoch at the first
// image; batch.RollOver carries the remainder into the next epoch instead,
// and batch.Drop drops it.
func LastBatch(p batch.Policy) Option { return option.New(func(c *config) { c.last = p }) }

// Index sets the .idx file of the .rec (path_imgidx). When New reads
// several .rec files, path is a ";"-separated list of .idx files, one per
// .rec in the same order, or a directory holding, for every .rec, the .idx
// of the same base name (train.rec: train.idx); every .rec then needs its
// index. With Shuffle, records
// are then read in a fresh random permutation every epoch; without it,
// Shuffle mixes a buffer of ShuffleBuffer records. Every pass first checks
// the index against the .rec (recordio.ValidateIndex: every entry a record
// start, no offset twice, every record listed) and fails, naming the .idx
// line, when it does not match; the index also gives the pass's record count
// to SkipBad. A pass whose index lists records but that reads none of them
// is an error.
func Index(path string) Option { return option.New(func(c *config) { c.idxPath = path }) }

// List sets a .lst file (path_imglist) that New reads: labels are then
// looked up by the id in each record's header.
func List(path string) Option { return option.New(func(c *config) { c.listPath = path }) }

// LabelsFrom gives each record the labels of its id in l, as a .lst file
// does (see List); an id missing from l is an error wrapping ErrLabel.
// Without it (and without List), labels come from the record headers: the
// label array when its flag is positive, else the single header label.
func LabelsFrom(l *Labels) Option { return option.New(func(c *config) { c.labels = l }) }

// LabelWidth sets the number of labels per image (label_width); the default
// is 1. Without a .lst file it must equal the label count of records whose
// header holds a label array.
func LabelWidth(n int) Option { return option.New(func(c *config) { c.labelWidth = n }) }

// Shuffle reads the records in a random order, new every epoch (shuffle),
// and seeds it and every random augmentation with seed (seed).
func Shuffle(seed uint64) Option {
	return option.New(func(c *config) { c.shuffle, c.seed = true, seed })
}

// Seed seeds the random augmentations (and the shuffle, if any) without
// turning shuffling on (seed). Image i of epoch e draws from
// source.NewRand(seed, e, i).
func Seed(seed uint64) Option { return option.New(func(c *config) { c.seed = seed }) }

// ShuffleBuffer sets the number of records a shuffle without an index mixes
// at once; the default is 4096.
func ShuffleBuffer(n int) Option { return option.New(func(c *config) { c.shuffleBuffer = n }) }

// Shard reads only shard index of count equal byte ranges of the data, for
// distributed training (MXNet's num_parts and part_index), as
// recordio.Shard cuts them: several .rec files are cut as one concatenated
// stream, so every record of every file falls in exactly one shard.
func Shard(count, index int) Option {
	return option.New(func(c *config) { c.shardCount, c.shardIdx = count, index })
}

// Names sets the names of the data and label tensors; the defaults are
// MXNet's "data" and "softmax_label" (data_name, label_name).
func Names(data, label string) Option {
	return option.New(func(c *config) { c.dataName, c.labelName = data, label })
}

// SkipBad sets the bad-record policy to source.SkipBad(maxFraction, opts...).
// Without it, the pass ends at the first bad record with its *tensorfeed.Error.
// With it, a record whose header, labels or image cannot be parsed or
// decoded (any error wrapping tensorfeed.ErrBadData, an image over
// MaxDecodeBytes included) is skipped, counted (Iter.Skipped) and logged at
// warn level through the pass's tensorfeed.Logger with its file, record
// index and byte offset, until the skipped records pass maxFraction of the
// pass; with an Index the pass's total is known, so the bound holds from the
// first record. Later images move up to fill the gap: the batches are the
// same for any number of threads, and only the last batch of a pass may
// come out short (batch.Pad pads it with its own first images, batch.Drop
// drops it).
//
// Errors in the RecordIO framing (a bad magic word or length inside the
// .rec) and an .idx that does not match the .rec are not skipped: they say
// the file is damaged in a way whose extent is unknown, so they end the pass
// whatever the policy. For Decode, errors of the records reader itself
// (framing, I/O) end the pass too.
//
// SkipBad panics when maxFraction is not in [0, 1].
func SkipBad(maxFraction float64, opts ...source.SkipOption) Option {
	return OnBad(source.SkipBad(maxFraction, opts...))
}

// OnBad is SkipBad with a policy made by the caller, which several readers
// may share (its count is then the sum of theirs). A nil policy is the
// default: fail at the first bad record.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.skipBad = p }) }

// Resize scales the shorter side of every image to size first (resize).
func Resize(size int) Option { return option.New(func(c *config) { c.resize = size }) }

// RandCrop takes the crop of the data shape's size at a random position
// (rand_crop) instead of the centre.
func RandCrop() Option { return option.New(func(c *config) { c.crop = cropRandom }) }

// CropAt takes the crop whose top-left corner is (x, y) (crop_x_start,
// crop_y_start) instead of the centred one.
func CropAt(x, y int) Option {
	return option.New(func(c *config) { c.crop, c.cropX, c.cropY = cropFixed, x, y })
}

// CropSize crops a square of a side drawn from [min, max] (placed as the
// crop is: centred, RandCrop or CropAt) and resizes it to the data shape
// (min_crop_size, max_crop_size).
func CropSize(min, max int) Option {
	return option.New(func(c *config) { c.minCropSize, c.maxCropSize = min, max })
}

// Mirror flips every image left to right (mirror).
func Mirror() Option { return option.New(func(c *config) { c.mirror = mirrorAlways }) }

// RandMirror flips images left to right with probability 1/2 (rand_mirror).
func RandMirror() Option { return option.New(func(c *config) { c.mirror = mirrorRandom }) }

// Affine sets the random affine warp (max_rotate_angle, rotate,
// max_shear_ratio, min_random_scale, max_random_scale, max_aspect_ratio,
// min_img_size, max_img_size); see augment.Affine. Its Fill and Interp are
// replaced by those of the Fill and Interp options.
func Affine(a augment.Affine) Option { return option.New(func(c *config) { c.affine = a }) }

// Pad adds n pixels on every side before cropping (pad).
func Pad(n int) Option { return option.New(func(c *config) { c.pad = n }) }

// Fill sets the value of the pixels the affine warp or the padding add
// (fill_value). tensorfeed's default is 0; MXNet's is 255.
func Fill(v uint8) Option { return option.New(func(c *config) { c.fill = v }) }

// RandomHSL shifts hue, saturation and lightness by up to h, s and l
// (random_h, random_s, random_l); see augment.ColorJitter.
func RandomHSL(h, s, l int) Option {
	return option.New(func(c *config) { c.randomH, c.randomS, c.randomL = h, s, l })
}

// Interp sets the interpolation of resizing and warping (inter_method; see
// augment.InterpFromMXNet); the default is augment.Bilinear, as in MXNet.
func Interp(m augment.Interp) Option { return option.New(func(c *config) { c.interp = m }) }

// Normalize sets the normalisation (mean_r, mean_g, mean_b, mean_a, std_r,
// ..., scale, mean_img, max_random_contrast, max_random_illumination); see
// augment.Normalize. Its MeanImage must have the data shape's size.
func Normalize(n augment.Normalize) Option { return option.New(func(c *config) { c.norm = n }) }

// MeanImg sets the mean image file (mean_img), in MXNet's NDArray format
// (see ParseMeanImage): one float32 array of the data shape, subtracted
// from every image as Normalize's MeanImage is, instead of the per-channel
// means. When the file exists, New reads it. When it does not, the first
// pass first computes it, as MXNet does: a pass over the data (the same
// files, shard, decoding and augmentation, without shuffle or
// normalisation) that averages every pixel of every image, then saves it to
// path (WriteMeanImage) and uses it from then on; later Iters read the
// saved file. The mean applies to DType sample.Float32 and sample.Int8.
// path may be a URL (see Storage), which is only read: one that does not
// exist is an error.
func MeanImg(path string) Option { return option.New(func(c *config) { c.meanImgPath = path }) }

// Threads sets the number of goroutines that decode and augment
// (preprocess_threads); the default is min(4, GOMAXPROCS) for New and 1
// (the consumer's goroutine) for Decode and Augment. The output does not
// depend on it.
func Threads(n int) Option { return option.New(func(c *config) { c.threads = n }) }

// Prefetch sets the number of finished batches kept ready ahead of the
// consumer (prefetch_buffer); the default is 4, and 0 or less means none.
// Each costs a batch of memory.
func Prefetch(n int) Option { return option.New(func(c *config) { c.prefetch = n }) }

// DType sets the element type of the data tensor (dtype): sample.Float32
// (the default, normalised), sample.Uint8 (raw pixels, CHW, only mirrored)
// or sample.Int8, as MXNet's ImageRecordIter gives it: each pixel less its
// mean (Normalize's Mean per channel, or the mean image, MeanImg or
// Normalize's MeanImage, at the pixel's position), both rounded to
// integers, saturated to [-128, 127], then mirrored; Normalize's Std, Scale
// and random contrast and illumination do not apply.
func DType(dt sample.DType) Option { return option.New(func(c *config) { c.dtype = dt }) }

// Decoder sets the image decoder; the default is decode.Default().
func Decoder(d decode.Decoder) Option { return option.New(func(c *config) { c.decoder = d }) }

// MaxDecodeBytes bounds the memory one decode may take (see
// decode.Options.MaxBytes); the default is decode.DefaultMaxBytes. At most
// Threads images are decoded at once, so decoding holds at most Threads x
// MaxDecodeBytes. A record over the bound is a *tensorfeed.Error wrapping
// decode.ErrImage (and can be skipped, see SkipBad).
func MaxDecodeBytes(n int64) Option { return option.New(func(c *config) { c.maxDecodeBytes = n }) }

// Channels sets the channels of the images Decode returns: 1, 3 or 4, or
// 0, the default, for each image's own (see decode.Options.Channels).
// Decode panics on another count. New takes the channels from DataShape.
func Channels(n int) Option { return option.New(func(c *config) { c.channels = n }) }

// MaxPixels bounds the size of the images Decode accepts (see
// decode.Options.MaxPixels); the default is decode.DefaultMaxPixels.
func MaxPixels(n int) Option { return option.New(func(c *config) { c.maxPixels = n }) }

// Storage sets the options of package storage (endpoint, credentials,
// retries, read-ahead, a cache) through which New and its passes open
// files, and ReadList reads. The .rec files, the .idx files (Index), the
// .lst (List) and the mean image (MeanImg) may be s3://bucket/key objects
// or http(s):// URLs (see [storage.Open]); without Storage, URLs are
// reached with storage's defaults (the AWS_* environment variables). In
// New's list, a URL ending in ".rec" names one object and another s3://
// URL names a directory, whose .rec objects directly under it are read in
// key order, listed through storage.List (a URL with glob characters is
// listed as a glob); an Index URL that does not end in ".idx" names the
// directory of the .idx files. A missing remote MeanImg is an error: the
// mean image is computed and saved only to a local path.
//
// A pass in the files' order streams each .rec with storage's read-ahead.
// With an Index, every pass first checks the index against the .rec,
// reading the record headers through range requests of 256 KiB (for
// small records, about the whole file), and with Shuffle each record is
// one more range request: give storage.WithCache, so that a .rec is
// downloaded once and read from local disk by every later pass and
// process.
func Storage(opts ...storage.Option) Option {
	opts = slices.Clone(opts)
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// stageConfig applies opts for Decode and Augment.
func stageConfig(opts []Option) config {
	var c config
	option.Apply(&c, opts)
	if c.decoder == nil {
		c.decoder = decode.Default()
	}
	return c
}

// newConfig applies opts for New, checks them and fills in the defaults. An
// error lists every problem.
func newConfig(recPath string, opts []Option) (*config, error) {
	c := &config{shardCount: 1, prefetch: 4}
	option.Apply(c, opts)
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("imagerec: "+format, args...))
	}
	ctx := context.Background()
	if paths, err := recFiles(ctx, recPath, c.storage); err != nil {
		bad("%v", err)
	} else {
		c.recPaths = paths
	}
	if c.idxPath != "" && c.recPaths != nil {
		if paths, err := idxFiles(c.idxPath, c.recPaths); err != nil {
			bad("Index: %v", err)
		} else {
			c.idxPaths = paths
		}
	}
	if ch := c.shape[0]; ch != 1 && ch != 3 && ch != 4 {
		bad("DataShape%v: channels must be 1, 3 or 4", c.shape)
	}
	if c.shape[1] < 1 || c.shape[2] < 1 {
		bad("DataShape%v: height and width must be positive", c.shape)
	}
	if c.labelWidth == 0 {
		c.labelWidth = 1
	}
	if c.labelWidth < 0 {
		bad("LabelWidth %d < 0", c.labelWidth)
	}
	if c.shuffleBuffer == 0 {
		c.shuffleBuffer = 4096
	}
	if c.shuffleBuffer < 0 {
		bad("ShuffleBuffer %d < 0", c.shuffleBuffer)
	}
	if c.shardCount < 1 || c.shardIdx < 0 || c.shardIdx >= c.shardCount {
		bad("Shard(%d, %d): need count >= 1 and 0 <= index < count", c.shardCount, c.shardIdx)
	}
	if c.dataName == "" {
		c.dataName = "data"
	}
	if c.labelName == "" {
		c.labelName = "softmax_label"
	}
	if c.dataName == c.labelName {
		bad("Names: data and label are both %q", c.dataName)
	}
	if c.batchSize < 1 {
		bad("Batch %d < 1", c.batchSize)
	}
	if c.last > batch.RoundBatch {
		bad("LastBatch: unknown policy %v", c.last)
	}
	if c.resize < 0 || c.pad < 0 || c.randomH < 0 || c.randomS < 0 || c.randomL < 0 {
		bad("Resize, Pad and RandomHSL must not be negative")
	}
	if c.cropX < 0 || c.cropY < 0 {
		bad("CropAt(%d, %d) must not be negative", c.cropX, c.cropY)
	}
	if c.maxCropSize > 0 && (c.minCropSize < 1 || c.minCropSize > c.maxCropSize) {
		bad("CropSize(%d, %d): need 1 <= min <= max", c.minCropSize, c.maxCropSize)
	}
	if c.interp > augment.RandomInterp {
		bad("Interp: unknown method %d", c.interp)
	}
	c.affine.Fill, c.affine.Interp = c.fill, c.interp
	if err := c.affine.Check(); err != nil {
		bad("Affine: %v", err)
	}
	if n := c.shape[0] * c.shape[1] * c.shape[2]; c.norm.MeanImage != nil && len(c.norm.MeanImage) != n {
		bad("Normalize: MeanImage has %d values, DataShape%v needs %d", len(c.norm.MeanImage), c.shape, n)
	}
	if c.meanImgPath != "" && c.norm.MeanImage != nil {
		bad("MeanImg and Normalize's MeanImage are both set")
	}
	if c.threads == 0 {
		c.threads = min(4, runtime.GOMAXPROCS(0))
	}
	if c.threads < 0 {
		bad("Threads %d < 0", c.threads)
	}
	if c.maxDecodeBytes < 0 {
		bad("MaxDecodeBytes %d < 0", c.maxDecodeBytes)
	}
	if c.dtype == 0 {
		c.dtype = sample.Float32
	}
	if c.dtype != sample.Float32 && c.dtype != sample.Uint8 && c.dtype != sample.Int8 {
		bad("DType %v: must be float32, uint8 or int8", c.dtype)
	}
	if c.decoder == nil {
		c.decoder = decode.Default()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if c.meanImgPath != "" {
		mean, err := readMeanImage(ctx, c.meanImgPath, c.shape, c.storage)
		switch {
		case err == nil:
			c.norm.MeanImage = mean
		case errors.Is(err, fs.ErrNotExist):
			c.computeMean = true
		default:
			return nil, err
		}
	}
	if c.listPath != "" {
		entries, err := readList(ctx, c.listPath, c.storage)
		if err != nil {
			return nil, err
		}
		if c.labels, err = NewLabels(entries, c.labelWidth); err != nil {
			return nil, fmt.Errorf("imagerec: %s: %w", c.listPath, err)
		}
	}
	return c, nil
}
