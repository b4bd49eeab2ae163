package imagerec

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// Config holds the parameters of an Iter, grouped as MXNet's
// ImageRecordIter groups them: the data to read, the batches to make, the
// augmentation, the normalisation and the backend that runs it all. Zero
// values are the defaults each field documents; where tensorfeed's default
// differs from MXNet's, the field says so.
type Config struct {
	Data    DataOptions
	Batch   BatchOptions
	Aug     AugOptions
	Norm    Normalize
	Backend BackendOptions
}

// DataOptions says what to read (MXNet's ImageRecParserParam and
// ImageRecordParam).
type DataOptions struct {
	// RecPath is the .rec file (path_imgrec). Required.
	RecPath string
	// IdxPath is its .idx file (path_imgidx). With Shuffle, records are
	// then read in a fresh random permutation every epoch; without it,
	// Shuffle uses a buffer of ShuffleBuffer records. Every pass first
	// checks the index against the .rec (recordio.ValidateIndex: every
	// entry a record start, no offset twice, every record listed) and
	// fails, naming the .idx line, when it does not match; the index also
	// gives the pass's record count to SkipBad. A pass whose index lists
	// records but that reads none of them is an error.
	IdxPath string
	// ListPath is a .lst file (path_imglist): labels are then looked up
	// by the id in each record's header.
	ListPath string
	// Shape is the shape of one output image, channels first: C, H, W
	// (data_shape). C is 1 (gray), 3 (RGB) or 4 (RGBA). Required.
	Shape [3]int
	// LabelWidth is the number of labels per image (label_width); 0 means
	// 1. Without ListPath it must equal the label count of records whose
	// header holds a label array.
	LabelWidth int
	// Shuffle reads the records in a random order, new every epoch
	// (shuffle).
	Shuffle bool
	// ShuffleBuffer is the number of records a shuffle without IdxPath
	// mixes at once; 0 means 4096.
	ShuffleBuffer int
	// Seed seeds the shuffling and every random augmentation (seed).
	Seed uint64
	// NumParts and PartIndex read only part PartIndex of NumParts equal
	// byte ranges of the file (num_parts, part_index), for distributed
	// training. NumParts 0 means 1.
	NumParts, PartIndex int
	// DataName and LabelName name the output tensors; empty means "data"
	// and "softmax_label", MXNet's names.
	DataName, LabelName string
	// SkipBad is the bad-record policy, source.SkipBad(maxFraction,
	// opts...). nil, the default, ends the pass at the first bad record
	// with its *RecordError. With a policy, a record whose header, labels
	// or image cannot be parsed or decoded (any error wrapping
	// tensorfeed.ErrBadData, an image over MaxDecodeBytes included) is
	// skipped, counted (Iter.Skipped) and logged at warn level with its
	// file, record index and byte offset, until the skipped records pass
	// maxFraction of the pass; with IdxPath the pass's total is known, so
	// the bound holds from the first record. Later images move up to fill
	// the gap: the batches are the same for any number of threads, and
	// only the last batch of a pass may come out short (batch.Pad pads it
	// with its own first images, batch.Drop drops it).
	//
	// Errors in the RecordIO framing (a bad magic word or length inside the
	// .rec) and an .idx that does not match the .rec are not skipped: they
	// say the file is damaged in a way whose extent is unknown, so they end
	// the pass whatever the policy.
	SkipBad *source.SkipPolicy
}

// BatchOptions says how samples are grouped (MXNet's BatchParam).
type BatchOptions struct {
	// Size is the number of images per batch (batch_size). Required.
	Size int
	// Last is what happens to a short last batch. The zero value, Keep,
	// yields it short. MXNet's default round_batch=true fills it up with
	// the first images of the data and reports them as padding: that is
	// batch.Pad (Tensors.Padded counts them); batch.RollOver carries the
	// remainder into the next epoch instead, and batch.Drop drops it.
	Last batch.Policy
}

// CropMode says where the crop of Shape's size is taken from an image.
type CropMode uint8

// The crop modes.
const (
	// CropCenter takes the centred rectangle (MXNet's default).
	CropCenter CropMode = iota
	// CropRandom takes a rectangle at a random position (rand_crop).
	CropRandom
	// CropFixed takes the rectangle whose top-left corner is (CropX,
	// CropY) (crop_x_start, crop_y_start).
	CropFixed
)

// MirrorMode says whether images are flipped left to right.
type MirrorMode uint8

// The mirror modes.
const (
	MirrorNone   MirrorMode = iota // never (the default)
	MirrorRandom                   // with probability 1/2 (rand_mirror)
	MirrorAlways                   // always (mirror)
)

// AugOptions holds the augmentation parameters (MXNet's
// DefaultImageAugmentParam, plus mirroring). They are applied in MXNet's
// order: resize, affine warp, pad, crop, colour jitter, mirror. Each step
// is also available alone as an Aug (Resize, RandomAffine, Pad, CenterCrop,
// RandomCrop, Crop, ColorJitter, Mirror, RandomMirror).
type AugOptions struct {
	// Resize scales the shorter side to this size first (resize); 0 keeps
	// the size.
	Resize int
	// Crop places the crop; CropX and CropY are its origin for CropFixed.
	Crop         CropMode
	CropX, CropY int
	// MinCropSize and MaxCropSize, when MaxCropSize > 0, crop a square of a
	// side drawn from [MinCropSize, MaxCropSize] (placed by Crop) and
	// resize it to Shape (min_crop_size, max_crop_size).
	MinCropSize, MaxCropSize int
	// Mirror flips images (mirror, rand_mirror).
	Mirror MirrorMode
	// MaxRotateAngle, Rotate, MaxShearRatio, MinRandomScale,
	// MaxRandomScale, MaxAspectRatio, MinImgSize and MaxImgSize drive the
	// random affine warp; see Affine for each.
	MaxRotateAngle                 int
	Rotate                         int
	MaxShearRatio                  float32
	MinRandomScale, MaxRandomScale float32
	MaxAspectRatio                 float32
	MinImgSize, MaxImgSize         float32
	// Pad adds this many pixels on every side before cropping (pad).
	Pad int
	// Fill is the value of pixels the warp or the padding add
	// (fill_value). tensorfeed's default is 0; MXNet's is 255.
	Fill uint8
	// RandomH, RandomS and RandomL shift hue, saturation and lightness by
	// up to that much (random_h, random_s, random_l); see ColorJitter.
	RandomH, RandomS, RandomL int
	// Interp is the interpolation of resizing and warping (inter_method);
	// the zero value is Bilinear, as in MXNet.
	Interp Interp
}

// affine returns the affine part of the options.
func (a *AugOptions) affine() Affine {
	return Affine{
		MaxRotateAngle: a.MaxRotateAngle, Rotate: a.Rotate, MaxShearRatio: a.MaxShearRatio,
		MinRandomScale: a.MinRandomScale, MaxRandomScale: a.MaxRandomScale,
		MaxAspectRatio: a.MaxAspectRatio, MinImgSize: a.MinImgSize, MaxImgSize: a.MaxImgSize,
		Fill: a.Fill, Interp: a.Interp,
	}
}

// BackendOptions says how the work is run (MXNet's preprocess_threads and
// PrefetcherParam).
type BackendOptions struct {
	// Threads is the number of goroutines that decode and augment
	// (preprocess_threads); 0 means min(4, GOMAXPROCS).
	Threads int
	// Prefetch is the number of finished batches kept ready ahead of the
	// consumer (prefetch_buffer); 0 means 4, negative means none. Each
	// costs a batch of memory: 77 MB for 128 float32 images of 3x224x224.
	Prefetch int
	// DType is the element type of the data tensor (dtype): sample.Float32
	// (the default, normalised) or sample.Uint8 (raw pixels, CHW, only
	// mirrored).
	DType sample.DType
	// Decoder decodes the images; nil means DefaultDecoder().
	Decoder Decoder
	// MaxDecodeBytes bounds the memory one decode may take (see
	// DecodeOptions.MaxBytes); 0 means DefaultMaxDecodeBytes. At most
	// Threads images are decoded at once, so decoding holds at most
	// Threads x MaxDecodeBytes. A record over the bound is a *RecordError
	// wrapping ErrImage (and can be skipped, see DataOptions.SkipBad).
	MaxDecodeBytes int64
	// Logger receives debug messages; nil means zap.NewNop().
	Logger *zap.Logger
}

// resolved is a checked Config with its defaults filled in.
type resolved struct {
	Config
	labels *Labels
}

// resolve checks cfg and fills in its defaults.
func resolve(cfg Config) (*resolved, error) {
	d, b, a, be := &cfg.Data, &cfg.Batch, &cfg.Aug, &cfg.Backend
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("imagerec: config: "+format, args...))
	}
	if d.RecPath == "" {
		bad("Data.RecPath is empty")
	} else if _, err := os.Stat(d.RecPath); err != nil {
		bad("Data.RecPath: %v", err)
	}
	if c := d.Shape[0]; c != 1 && c != 3 && c != 4 {
		bad("Data.Shape %v: channels must be 1, 3 or 4", d.Shape)
	}
	if d.Shape[1] < 1 || d.Shape[2] < 1 {
		bad("Data.Shape %v: height and width must be positive", d.Shape)
	}
	if d.LabelWidth == 0 {
		d.LabelWidth = 1
	}
	if d.LabelWidth < 0 {
		bad("Data.LabelWidth %d < 0", d.LabelWidth)
	}
	if d.ShuffleBuffer == 0 {
		d.ShuffleBuffer = 4096
	}
	if d.ShuffleBuffer < 0 {
		bad("Data.ShuffleBuffer %d < 0", d.ShuffleBuffer)
	}
	if d.NumParts == 0 {
		d.NumParts = 1
	}
	if d.NumParts < 1 || d.PartIndex < 0 || d.PartIndex >= d.NumParts {
		bad("Data.NumParts %d, PartIndex %d: need 0 <= PartIndex < NumParts", d.NumParts, d.PartIndex)
	}
	if d.DataName == "" {
		d.DataName = "data"
	}
	if d.LabelName == "" {
		d.LabelName = "softmax_label"
	}
	if d.DataName == d.LabelName {
		bad("Data.DataName and LabelName are both %q", d.DataName)
	}
	if b.Size < 1 {
		bad("Batch.Size %d < 1", b.Size)
	}
	if b.Last > batch.RollOver {
		bad("Batch.Last: unknown policy %v", b.Last)
	}
	if a.Resize < 0 || a.Pad < 0 || a.RandomH < 0 || a.RandomS < 0 || a.RandomL < 0 {
		bad("Aug: Resize, Pad and RandomH/S/L must not be negative")
	}
	if a.Crop > CropFixed {
		bad("Aug.Crop: unknown mode %d", a.Crop)
	}
	if a.CropX < 0 || a.CropY < 0 {
		bad("Aug.CropX, CropY (%d, %d) must not be negative", a.CropX, a.CropY)
	}
	if a.MaxCropSize > 0 && (a.MinCropSize < 1 || a.MinCropSize > a.MaxCropSize) {
		bad("Aug: need 1 <= MinCropSize <= MaxCropSize, have %d, %d", a.MinCropSize, a.MaxCropSize)
	}
	if a.Mirror > MirrorAlways {
		bad("Aug.Mirror: unknown mode %d", a.Mirror)
	}
	if a.Interp > RandomInterp {
		bad("Aug.Interp: unknown method %d", a.Interp)
	}
	af := a.affine()
	lo, hi := af.scales()
	if af.MaxRotateAngle < 0 || af.MaxShearRatio < 0 || af.MaxAspectRatio < 0 || lo < 0 || lo > hi {
		bad("Aug: bad affine parameters (negative angle or ratio, or MinRandomScale > MaxRandomScale)")
	}
	n := &cfg.Norm
	if n.MeanImage != nil && len(n.MeanImage) != d.Shape[0]*d.Shape[1]*d.Shape[2] {
		bad("Norm.MeanImage has %d values, Shape %v needs %d", len(n.MeanImage), d.Shape,
			d.Shape[0]*d.Shape[1]*d.Shape[2])
	}
	if be.Threads == 0 {
		be.Threads = min(4, runtime.GOMAXPROCS(0))
	}
	if be.Threads < 0 {
		bad("Backend.Threads %d < 0", be.Threads)
	}
	if be.MaxDecodeBytes < 0 {
		bad("Backend.MaxDecodeBytes %d < 0", be.MaxDecodeBytes)
	}
	if be.Prefetch == 0 {
		be.Prefetch = 4
	}
	if be.DType == 0 {
		be.DType = sample.Float32
	}
	if be.DType != sample.Float32 && be.DType != sample.Uint8 {
		bad("Backend.DType %v: must be float32 or uint8", be.DType)
	}
	if be.Decoder == nil {
		be.Decoder = DefaultDecoder()
	}
	if be.Logger == nil {
		be.Logger = zap.NewNop()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r := &resolved{Config: cfg}
	if d.ListPath != "" {
		entries, err := ReadList(d.ListPath)
		if err != nil {
			return nil, err
		}
		if r.labels, err = NewLabels(entries, d.LabelWidth); err != nil {
			return nil, fmt.Errorf("imagerec: %s: %w", d.ListPath, err)
		}
	}
	return r, nil
}
