package imagerec

import (
	"image"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// processor turns one record into one row of a batch: parse, decode,
// augment, normalise, written straight into the batch's tensors.
type processor struct {
	cfg *config
	// direct: no step changes the geometry before the crop, so the decoder
	// crops (the Go decoder then converts only the crop's pixels).
	direct bool
	// region, when set, lends its decoded pixels for a direct crop that
	// needs no colour jitter, so the crop is never copied.
	region decode.RegionDecoder
}

func newProcessor(cfg *config) *processor {
	p := &processor{cfg: cfg}
	p.direct = cfg.resize == 0 && !cfg.affine.Enabled() && cfg.pad == 0 && cfg.maxCropSize == 0
	if rd, ok := cfg.decoder.(decode.RegionDecoder); ok && p.direct && !cfg.jitter() {
		p.region = rd
	}
	return p
}

// jitter reports whether a colour jitter is configured.
func (c *config) jitter() bool { return c.randomH != 0 || c.randomS != 0 || c.randomL != 0 }

// run processes rec for the given epoch into one row of data (f32 or u8,
// by dtype) and of label. Its random draws come from source.NewRand(seed,
// epoch, rec.Index), in this order: resize interpolation, affine warp, crop
// size, crop position (y, then x), colour jitter, mirror, contrast and
// illumination; a step that is off draws nothing.
func (p *processor) run(rec recordio.Record, epoch int, f32 []float32, u8 []uint8, label []float32) error {
	cfg := p.cfg
	h, data, err := ParseRecord(rec.Data)
	if err != nil {
		return recordErr(rec, err)
	}
	l, err := recordLabels(h, cfg.labels, cfg.labelWidth)
	if err != nil {
		return recordErr(rec, err)
	}
	copy(label, l)
	r := source.NewRand(cfg.seed, epoch, rec.Index)
	if p.region != nil {
		// Normalise straight from the decoder's buffer.
		full, rect, release, err := p.region.DecodeRegion(data, p.cropOptions(r))
		if err != nil {
			return recordErr(rec, err)
		}
		mirror := p.mirror(r)
		if u8 != nil {
			augment.ToCHWUint8Rect(u8, full, rect, mirror)
		} else {
			cfg.norm.IntoRect(f32, full, rect, mirror, r)
		}
		release()
		return nil
	}
	img, err := p.image(data, r)
	if err != nil {
		return recordErr(rec, err)
	}
	augment.JitterInPlace(img, cfg.randomH, cfg.randomS, cfg.randomL, r) // img is this call's own
	mirror := p.mirror(r)
	if u8 != nil {
		augment.ToCHWUint8(u8, img, mirror)
		return nil
	}
	cfg.norm.Into(f32, img, mirror, r)
	return nil
}

// mirror draws whether the image is flipped.
func (p *processor) mirror(r *rand.Rand) bool {
	m := p.cfg.mirror
	return m == mirrorAlways || (m == mirrorRandom && r.IntN(2) == 1)
}

// image decodes data and applies the geometric steps, giving an image of
// exactly Shape's size and channels.
func (p *processor) image(data []byte, r *rand.Rand) (sample.Image, error) {
	cfg := p.cfg
	c, H, W := cfg.shape[0], cfg.shape[1], cfg.shape[2]
	dec := cfg.decoder
	if p.direct {
		return dec.Decode(data, p.cropOptions(r))
	}
	img, err := dec.Decode(data, decode.Options{Channels: c, MinShorter: cfg.resize, MaxBytes: cfg.maxDecodeBytes})
	if err != nil {
		return img, err
	}
	if cfg.resize > 0 {
		w, h := augment.ShorterSide(img.Width, img.Height, cfg.resize)
		img = augment.ResizeImage(img, w, h, cfg.interp.Pick(img.Width, img.Height, w, h, r))
	}
	if cfg.affine.Enabled() {
		if img, err = cfg.affine.Apply(img, r); err != nil {
			return img, err
		}
	}
	if cfg.pad > 0 {
		img = augment.PadImage(img, cfg.pad, cfg.fill)
	}
	if cfg.maxCropSize > 0 {
		size := cfg.minCropSize + r.IntN(cfg.maxCropSize-cfg.minCropSize+1)
		rect, err := p.place(img.Width, img.Height, size, size, r)
		if err != nil {
			return img, err
		}
		img = augment.CropImage(img, rect)
		return augment.ResizeImage(img, W, H, cfg.interp.Pick(size, size, W, H, r)), nil
	}
	rect, err := p.place(img.Width, img.Height, W, H, r)
	if err != nil {
		return img, err
	}
	if rect.Dx() == img.Width && rect.Dy() == img.Height {
		return img, nil
	}
	return augment.CropImage(img, rect), nil
}

// cropOptions asks the decoder for the crop of Shape's size, placed with r.
func (p *processor) cropOptions(r *rand.Rand) decode.Options {
	s := p.cfg.shape
	return decode.Options{Channels: s[0], MaxBytes: p.cfg.maxDecodeBytes, Crop: func(w, h int) (image.Rectangle, error) {
		return p.place(w, h, s[2], s[1], r)
	}}
}

// place returns where a cw x ch crop goes in a w x h image.
func (p *processor) place(w, h, cw, ch int, r *rand.Rand) (image.Rectangle, error) {
	c := p.cfg
	switch c.crop {
	case cropRandom:
		return augment.RandomRect(w, h, cw, ch, r)
	case cropFixed:
		return augment.FixedRect(w, h, c.cropX, c.cropY, cw, ch)
	}
	return augment.CenteredRect(w, h, cw, ch)
}
