package mxnet

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// imageRecordDefaults are ImageRecordIter's parameters and their defaults:
// MXNet's (src/io/iter_image_recordio_2.cc's ImageRecParserParam and
// ImageRecordParam, image_aug_default.cc's DefaultImageAugmentParam,
// iter_normalize.h's ImageNormalizeParam, the batch loader's and the
// prefetcher's), then the few of tensorfeed (decoder, max_decode_bytes,
// shuffle_buffer, skip_bad, storage). A nil default is a parameter MXNet
// requires.
var imageRecordDefaults = Params{
	"path_imgrec":             "",
	"path_imgidx":             "",
	"path_imglist":            "",
	"data_shape":              nil,
	"batch_size":              nil,
	"round_batch":             true,
	"label_width":             1,
	"shuffle":                 false,
	"seed":                    0,
	"num_parts":               1,
	"part_index":              0,
	"data_name":               "data",
	"label_name":              "softmax_label",
	"resize":                  -1,
	"rand_crop":               false,
	"crop_x_start":            -1,
	"crop_y_start":            -1,
	"min_crop_size":           -1,
	"max_crop_size":           -1,
	"mirror":                  false,
	"rand_mirror":             false,
	"max_rotate_angle":        0,
	"rotate":                  -1,
	"max_shear_ratio":         0,
	"min_random_scale":        1,
	"max_random_scale":        1,
	"max_aspect_ratio":        0,
	"min_img_size":            0,
	"max_img_size":            1e10,
	"pad":                     0,
	"fill_value":              255,
	"random_h":                0,
	"random_s":                0,
	"random_l":                0,
	"inter_method":            1,
	"mean_img":                "",
	"mean_r":                  0,
	"mean_g":                  0,
	"mean_b":                  0,
	"mean_a":                  0,
	"std_r":                   1,
	"std_g":                   1,
	"std_b":                   1,
	"std_a":                   1,
	"scale":                   1,
	"max_random_contrast":     0,
	"max_random_illumination": 0,
	"preprocess_threads":      0, // MXNet's 4, at most GOMAXPROCS
	"prefetch_buffer":         4,
	"dtype":                   "float32",
	"verbose":                 true,
	// tensorfeed's
	"decoder":          nil,
	"max_decode_bytes": 0,
	"shuffle_buffer":   4096,
	"skip_bad":         nil,
	"storage":          nil,
}

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

// recConfig is ImageRecordIter's checked configuration. Its field names
// appear in the state kind (see recIter.kind): a checkpoint taken with
// other augmentation is refused naming the field.
type recConfig struct {
	// data
	recArg               string // path_imgrec as given
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
	labels               recLabels
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
	storage        []storage.Option
}

// parseImageRecord reads p over ImageRecordIter's defaults, checks every
// parameter, reads the .lst file and the mean image, and returns the
// configuration. An error lists every bad parameter.
func parseImageRecord(ctx context.Context, p Params) (*recConfig, error) {
	const iter = "ImageRecordIter"
	a, err := parse(iter, p, imageRecordDefaults)
	if err != nil {
		return nil, err
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("mxnet: "+iter+": "+format, args...))
	}
	c := &recConfig{}
	for _, k := range []string{"data_shape", "batch_size"} {
		if a.p[k] == nil {
			bad("%s is required", k)
		}
	}
	if a.p["data_shape"] != nil {
		c.shape = a.shape("data_shape")
	}
	if a.p["batch_size"] != nil {
		c.batchSize = a.int("batch_size")
	}
	c.last = a.policy("round_batch")
	c.idxPath, c.listPath = a.str("path_imgidx"), a.str("path_imglist")
	c.labelWidth = a.int("label_width")
	c.shuffle = a.bool("shuffle")
	seed := a.int("seed")
	c.shardCount, c.shardIdx = a.int("num_parts"), a.int("part_index")
	c.dataName, c.labelName = a.str("data_name"), a.str("label_name")
	c.resize = max(a.int("resize"), 0)
	cropX, cropY := a.int("crop_x_start"), a.int("crop_y_start")
	switch {
	case a.bool("rand_crop"):
		c.crop = cropRandom
		if cropX >= 0 || cropY >= 0 {
			bad("rand_crop and crop_x_start, crop_y_start are both set")
		}
	case cropX >= 0 || cropY >= 0:
		c.crop, c.cropX, c.cropY = cropFixed, max(cropX, 0), max(cropY, 0)
	}
	c.minCropSize, c.maxCropSize = max(a.int("min_crop_size"), 0), max(a.int("max_crop_size"), 0)
	switch {
	case a.bool("mirror"): // MXNet's normaliser flips always, before it looks at rand_mirror
		c.mirror = mirrorAlways
	case a.bool("rand_mirror"):
		c.mirror = mirrorRandom
	}
	c.affine = augment.Affine{
		MaxRotateAngle: a.int("max_rotate_angle"),
		Rotate:         max(a.int("rotate"), 0),
		MaxShearRatio:  a.float("max_shear_ratio"),
		MinRandomScale: a.float("min_random_scale"),
		MaxRandomScale: a.float("max_random_scale"),
		MaxAspectRatio: a.float("max_aspect_ratio"),
		MinImgSize:     a.float("min_img_size"),
		MaxImgSize:     a.float("max_img_size"),
	}
	if c.affine.MaxImgSize >= 1e10 {
		c.affine.MaxImgSize = 0 // MXNet's default: no bound
	}
	c.pad = a.int("pad")
	fill := a.int("fill_value")
	c.randomH, c.randomS, c.randomL = a.int("random_h"), a.int("random_s"), a.int("random_l")
	c.interp = a.interp("inter_method")
	c.meanImgPath = a.str("mean_img")
	c.norm = augment.Normalize{
		Mean:                  [4]float32{a.float("mean_r"), a.float("mean_g"), a.float("mean_b"), a.float("mean_a")},
		Std:                   [4]float32{a.float("std_r"), a.float("std_g"), a.float("std_b"), a.float("std_a")},
		Scale:                 a.float("scale"),
		MaxRandomContrast:     a.float("max_random_contrast"),
		MaxRandomIllumination: a.float("max_random_illumination"),
	}
	c.threads, c.prefetch = a.int("preprocess_threads"), a.int("prefetch_buffer")
	c.dtype = a.dtype("dtype")
	a.bool("verbose")
	c.decoder = a.decoder("decoder")
	c.maxDecodeBytes = int64(a.int("max_decode_bytes"))
	c.shuffleBuffer = a.int("shuffle_buffer")
	c.skipBad = a.skipPolicy("skip_bad")
	c.storage = a.storage("storage")
	rec := a.str("path_imgrec")
	c.recArg = rec
	if a.err != nil {
		return nil, a.err
	}

	if paths, err := recFiles(ctx, rec, c.storage); err != nil {
		bad("path_imgrec: %v", err)
	} else {
		c.recPaths = paths
	}
	if c.idxPath != "" && c.recPaths != nil {
		if paths, err := idxFiles(c.idxPath, c.recPaths); err != nil {
			bad("path_imgidx: %v", err)
		} else {
			c.idxPaths = paths
		}
	}
	if ch := c.shape[0]; ch != 1 && ch != 3 && ch != 4 {
		bad("data_shape %v: channels must be 1, 3 or 4", c.shape)
	}
	if c.shape[1] < 1 || c.shape[2] < 1 {
		bad("data_shape %v: height and width must be positive", c.shape)
	}
	if c.labelWidth < 1 {
		bad("label_width %d < 1", c.labelWidth)
	}
	if seed < 0 {
		bad("seed %d must not be negative", seed)
	}
	c.seed = uint64(seed)
	if c.shuffleBuffer < 1 {
		bad("shuffle_buffer %d < 1", c.shuffleBuffer)
	}
	if c.shardCount < 1 || c.shardIdx < 0 || c.shardIdx >= c.shardCount {
		bad("part_index %d of num_parts %d: need num_parts >= 1 and 0 <= part_index < num_parts", c.shardIdx, c.shardCount)
	}
	if c.dataName == "" || c.labelName == "" || c.dataName == c.labelName {
		bad("data_name %q and label_name %q must be two names", c.dataName, c.labelName)
	}
	if c.batchSize < 1 && a.p["batch_size"] != nil {
		bad("batch_size %d < 1", c.batchSize)
	}
	if c.pad < 0 || c.randomH < 0 || c.randomS < 0 || c.randomL < 0 {
		bad("pad, random_h, random_s and random_l must not be negative")
	}
	if fill < 0 || fill > 255 {
		bad("fill_value %d is not in [0, 255]", fill)
	}
	c.fill = uint8(fill)
	if c.maxCropSize > 0 && (c.minCropSize < 1 || c.minCropSize > c.maxCropSize) {
		bad("min_crop_size %d, max_crop_size %d: need 1 <= min <= max", c.minCropSize, c.maxCropSize)
	}
	c.affine.Fill, c.affine.Interp = c.fill, c.interp
	if err := c.affine.Check(); err != nil {
		bad("%v", err)
	}
	if c.threads == 0 {
		c.threads = min(4, runtime.GOMAXPROCS(0))
	}
	if c.threads < 0 {
		bad("preprocess_threads %d < 0", c.threads)
	}
	if c.prefetch < 0 {
		bad("prefetch_buffer %d < 0", c.prefetch)
	}
	if c.maxDecodeBytes < 0 {
		bad("max_decode_bytes %d < 0", c.maxDecodeBytes)
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
		entries, err := imagerec.ReadList(c.listPath, c.storage...)
		if err != nil {
			return nil, err
		}
		if c.labels, err = newRecLabels(entries, c.labelWidth); err != nil {
			return nil, fmt.Errorf("mxnet: %s: %s: %w", iter, c.listPath, err)
		}
	}
	return c, nil
}

// recLabels maps an image id to its labels, as ImageRecordIter reads a
// .lst file (path_imglist): labels come from the list by the id a record
// carries, not by the record's position.
type recLabels map[uint64][]float32

// newRecLabels keeps the first width labels of every entry. An entry with
// fewer, or an index that appears twice, is an error wrapping
// imagerec.ErrList.
func newRecLabels(entries []imagerec.ListEntry, width int) (recLabels, error) {
	flat := make([]float32, 0, len(entries)*width)
	m := make(recLabels, len(entries))
	for i, e := range entries {
		if len(e.Labels) < width {
			return nil, fmt.Errorf("%w: entry %d (index %d) has %d labels, label_width is %d",
				imagerec.ErrList, i, e.Index, len(e.Labels), width)
		}
		if _, dup := m[e.Index]; dup {
			return nil, fmt.Errorf("%w: index %d appears twice", imagerec.ErrList, e.Index)
		}
		n := len(flat)
		flat = append(flat, e.Labels[:width]...)
		m[e.Index] = flat[n : n+width : n+width]
	}
	return m, nil
}

// errLabel is wrapped by the errors about a record's labels against the
// .lst file or label_width: an id missing from the list, a label count
// that is not the width. It wraps tensorfeed.ErrBadData, so skip_bad
// skips such records.
var errLabel = cause.Sentinel("mxnet: record labels do not fit", tensorfeed.ErrBadData)

// recordLabels returns the labels of a record with header h: from labels
// by id when there are any, else from the header, checked against width
// as ImageRecordIter checks them. The result may share memory with h or
// labels.
func recordLabels(h imagerec.Header, labels recLabels, width int) ([]float32, error) {
	if labels != nil {
		l, ok := labels[h.ID]
		if !ok {
			return nil, fmt.Errorf("%w: id %d is not in the .lst file", errLabel, h.ID)
		}
		return l, nil
	}
	if h.Flag > 0 {
		if len(h.Labels) != width {
			return nil, fmt.Errorf("%w: record has %d labels, label_width is %d", errLabel, len(h.Labels), width)
		}
		return h.Labels, nil
	}
	if width > 1 {
		return nil, fmt.Errorf("%w: record has 1 label, label_width is %d (give path_imglist)", errLabel, width)
	}
	return []float32{h.Label}, nil
}

// float reads a number: a Go integer or float, or its string form.
func (a *args) float(k string) float32 {
	switch v := a.p[k].(type) {
	case int:
		return float32(v)
	case float64:
		return float32(v)
	case float32:
		return v
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return float32(f)
		}
	}
	a.fail(k, a.p[k], "a number")
	return 0
}

// shape reads a data shape: [3]int, []int of 3, or MXNet's tuple string
// "(3, 224, 224)".
func (a *args) shape(k string) [3]int {
	switch v := a.p[k].(type) {
	case [3]int:
		return v
	case []int:
		if len(v) == 3 {
			return [3]int(v)
		}
	case string:
		s := strings.Trim(strings.TrimSpace(v), "()[]")
		parts := strings.Split(s, ",")
		var out [3]int
		if len(parts) == 3 {
			ok := true
			for i, p := range parts {
				n, err := strconv.Atoi(strings.TrimSpace(p))
				ok = ok && err == nil
				out[i] = n
			}
			if ok {
				return out
			}
		}
	}
	a.fail(k, a.p[k], "a shape (channels, height, width)")
	return [3]int{}
}

// policy reads round_batch: MXNet's boolean (true: batch.RoundBatch, the
// short last batch filled with the first images, reported as padding, and
// the next epoch starting after them; false: batch.Pad, padded but every
// epoch from the first image), or any batch.Policy.
func (a *args) policy(k string) batch.Policy {
	if p, ok := a.p[k].(batch.Policy); ok {
		if p > batch.RoundBatch {
			a.fail(k, p, "a known batch.Policy")
		}
		return p
	}
	if a.bool(k) {
		return batch.RoundBatch
	}
	return batch.Pad
}

// interp reads inter_method: MXNet's code (0-4, 9, 10) or an
// augment.Interp.
func (a *args) interp(k string) augment.Interp {
	if m, ok := a.p[k].(augment.Interp); ok {
		if m > augment.RandomInterp {
			a.fail(k, m, "a known augment.Interp")
		}
		return m
	}
	code := a.int(k)
	if a.err != nil {
		return 0
	}
	m, err := interpFromMXNet(code)
	if err != nil {
		a.fail(k, a.p[k], "an interpolation code (0-4, 9 or 10)")
	}
	return m
}

// dtype reads dtype: "float32", "uint8" or "int8", or a sample.DType of
// those.
func (a *args) dtype(k string) sample.DType {
	v := a.p[k]
	if s, ok := v.(string); ok {
		switch strings.TrimSpace(s) {
		case "float32", "None", "":
			return sample.Float32
		case "uint8":
			return sample.Uint8
		case "int8":
			return sample.Int8
		}
	}
	if d, ok := v.(sample.DType); ok && (d == sample.Float32 || d == sample.Uint8 || d == sample.Int8) {
		return d
	}
	a.fail(k, v, "float32, uint8 or int8")
	return sample.Float32
}

func (a *args) decoder(k string) decode.Decoder {
	switch v := a.p[k].(type) {
	case nil:
		return nil
	case decode.Decoder:
		return v
	}
	a.fail(k, a.p[k], "a decode.Decoder")
	return nil
}

func (a *args) skipPolicy(k string) *source.SkipPolicy {
	switch v := a.p[k].(type) {
	case nil:
		return nil
	case *source.SkipPolicy:
		return v
	}
	a.fail(k, a.p[k], "a *source.SkipPolicy (source.SkipBad)")
	return nil
}

func (a *args) storage(k string) []storage.Option {
	switch v := a.p[k].(type) {
	case nil:
		return nil
	case []storage.Option:
		return v
	case storage.Option:
		return []storage.Option{v}
	}
	a.fail(k, a.p[k], "a []storage.Option")
	return nil
}

// interpFromMXNet converts MXNet's inter_method code (0-4, 9, 10).
func interpFromMXNet(code int) (augment.Interp, error) {
	switch code {
	case 0:
		return augment.Nearest, nil
	case 1:
		return augment.Bilinear, nil
	case 2:
		return augment.Bicubic, nil
	case 3:
		return augment.Area, nil
	case 4:
		return augment.Lanczos, nil
	case 9:
		return augment.AutoInterp, nil
	case 10:
		return augment.RandomInterp, nil
	}
	return 0, fmt.Errorf("inter_method %d (valid: 0-4, 9, 10)", code)
}
