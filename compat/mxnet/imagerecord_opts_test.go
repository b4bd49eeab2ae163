package mxnet

import (
	"context"
	"os"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// recOpt sets ImageRecordIter parameters: the tests build their iterators
// through Params, as users do, from settings written as Go calls.
type recOpt func(Params)

// meanImageKey carries a mean image given as values (augment.Normalize's
// MeanImage) to newRec, which saves it as the file mean_img names.
const meanImageKey = "test: mean image"

// newRec returns the iterator of path_imgrec path with opts over the
// defaults the tests were written for: the short last batch kept, pads
// and warps filled with 0.
func newRec(path string, opts ...recOpt) (*recIter, error) {
	p := Params{"path_imgrec": path, "round_batch": batch.Keep, "fill_value": 0}
	for _, o := range opts {
		o(p)
	}
	if mean, ok := p[meanImageKey].([]float32); ok {
		delete(p, meanImageKey)
		f, err := os.CreateTemp("", "mean*.nd")
		if err != nil {
			return nil, err
		}
		f.Close()
		defer os.Remove(f.Name()) // read by newRecIter
		if err := imagerec.WriteMeanImage(f.Name(), []int{len(mean)}, mean); err != nil {
			return nil, err
		}
		if s, ok := p["data_shape"].([3]int); ok && s[0]*s[1]*s[2] == len(mean) {
			if err := imagerec.WriteMeanImage(f.Name(), s[:], mean); err != nil {
				return nil, err
			}
		}
		p["mean_img"] = f.Name()
	}
	return newRecIter(context.Background(), p)
}

func set(kv ...any) recOpt {
	return func(p Params) {
		for i := 0; i < len(kv); i += 2 {
			p[kv[i].(string)] = kv[i+1]
		}
	}
}

func oDataShape(c, h, w int) recOpt       { return set("data_shape", [3]int{c, h, w}) }
func oBatch(n int) recOpt                 { return set("batch_size", n) }
func oLastBatch(l batch.Policy) recOpt    { return set("round_batch", l) }
func oIndex(path string) recOpt           { return set("path_imgidx", path) }
func oList(path string) recOpt            { return set("path_imglist", path) }
func oShuffle(seed uint64) recOpt         { return set("shuffle", true, "seed", seed) }
func oSeed(seed uint64) recOpt            { return set("seed", seed) }
func oShard(count, index int) recOpt      { return set("num_parts", count, "part_index", index) }
func oOnBad(p *source.SkipPolicy) recOpt  { return set("skip_bad", p) }
func oResize(n int) recOpt                { return set("resize", n) }
func oRandCrop() recOpt                   { return set("rand_crop", true) }
func oCropAt(x, y int) recOpt             { return set("crop_x_start", x, "crop_y_start", y) }
func oCropSize(lo, hi int) recOpt         { return set("min_crop_size", lo, "max_crop_size", hi) }
func oMirror() recOpt                     { return set("mirror", true) }
func oRandMirror() recOpt                 { return set("rand_mirror", true) }
func oPad(n int) recOpt                   { return set("pad", n) }
func oFill(v uint8) recOpt                { return set("fill_value", int(v)) }
func oRandomHSL(h, s, l int) recOpt       { return set("random_h", h, "random_s", s, "random_l", l) }
func oInterp(m augment.Interp) recOpt     { return set("inter_method", m) }
func oMeanImg(path string) recOpt         { return set("mean_img", path) }
func oThreads(n int) recOpt               { return set("preprocess_threads", n) }
func oPrefetch(n int) recOpt              { return set("prefetch_buffer", max(n, 0)) }
func oDecoder(d decode.Decoder) recOpt    { return set("decoder", d) }
func oMaxDecodeBytes(n int64) recOpt      { return set("max_decode_bytes", n) }
func oStorage(o ...storage.Option) recOpt { return set("storage", o) }

func oLabelWidth(n int) recOpt {
	if n == 0 {
		return set() // the default
	}
	return set("label_width", n)
}

func oShuffleBuffer(n int) recOpt {
	if n == 0 {
		return set()
	}
	return set("shuffle_buffer", n)
}

func oDType(dt sample.DType) recOpt {
	if dt == 0 {
		return set()
	}
	return set("dtype", dt)
}

func oAffine(a augment.Affine) recOpt {
	return set("max_rotate_angle", a.MaxRotateAngle, "rotate", a.Rotate, "max_shear_ratio", a.MaxShearRatio,
		"min_random_scale", a.MinRandomScale, "max_random_scale", a.MaxRandomScale, "max_aspect_ratio", a.MaxAspectRatio,
		"min_img_size", a.MinImgSize, "max_img_size", a.MaxImgSize)
}

func oNormalize(n augment.Normalize) recOpt {
	return func(p Params) {
		for i, c := range []string{"r", "g", "b", "a"} {
			p["mean_"+c] = n.Mean[i]
			p["std_"+c] = n.Std[i]
		}
		p["scale"] = n.Scale
		p["max_random_contrast"], p["max_random_illumination"] = n.MaxRandomContrast, n.MaxRandomIllumination
		if n.MeanImage != nil {
			p[meanImageKey] = n.MeanImage
		}
	}
}
