package imagerec

import (
	"image"
	"math/rand/v2"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// processor turns one record into one row of a batch: parse, decode,
// augment, normalise, written straight into the batch's tensors.
type processor struct {
	cfg    *resolved
	affine Affine
	// direct: no step changes the geometry before the crop, so the decoder
	// crops (the Go decoder then converts only the crop's pixels).
	direct bool
	// region, when set, lends its decoded pixels for a direct crop that
	// needs no colour jitter, so the crop is never copied.
	region regionDecoder
}

// regionDecoder is implemented by decoders that can lend the decoded image
// and the crop's rectangle instead of copying the crop out.
type regionDecoder interface {
	decodeRegion(data []byte, opts DecodeOptions) (full sample.Image, r image.Rectangle, release func(), err error)
}

func newProcessor(cfg *resolved) *processor {
	a := &cfg.Aug
	p := &processor{cfg: cfg, affine: a.affine()}
	p.direct = a.Resize == 0 && !p.affine.Enabled() && a.Pad == 0 && a.MaxCropSize == 0
	if rd, ok := cfg.Backend.Decoder.(regionDecoder); ok && p.direct && a.RandomH == 0 && a.RandomS == 0 && a.RandomL == 0 {
		p.region = rd
	}
	return p
}

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
	l, err := recordLabels(h, cfg.labels, cfg.Data.LabelWidth)
	if err != nil {
		return recordErr(rec, err)
	}
	copy(label, l)
	r := source.NewRand(cfg.Data.Seed, epoch, rec.Index)
	a := &cfg.Aug
	if p.region != nil {
		// Normalise straight from the decoder's buffer.
		full, rect, release, err := p.region.decodeRegion(data, p.cropOptions(r))
		if err != nil {
			return recordErr(rec, err)
		}
		v := subView(full, rect)
		mirror := a.Mirror == MirrorAlways || (a.Mirror == MirrorRandom && r.IntN(2) == 1)
		if u8 != nil {
			toCHWUint8(u8, v, mirror)
		} else {
			cfg.Norm.into(f32, v, mirror, r)
		}
		release()
		return nil
	}
	img, err := p.image(data, r)
	if err != nil {
		return recordErr(rec, err)
	}
	if a.RandomH != 0 || a.RandomS != 0 || a.RandomL != 0 {
		dh, ds, dl := drawHSL(a.RandomH, a.RandomS, a.RandomL, r)
		shiftHLS(img, dh, ds, dl) // img is this call's own
	}
	mirror := a.Mirror == MirrorAlways || (a.Mirror == MirrorRandom && r.IntN(2) == 1)
	if u8 != nil {
		ToCHWUint8(u8, img, mirror)
		return nil
	}
	cfg.Norm.Into(f32, img, mirror, r)
	return nil
}

// image decodes data and applies the geometric steps, giving an image of
// exactly Shape's size and channels.
func (p *processor) image(data []byte, r *rand.Rand) (sample.Image, error) {
	cfg := p.cfg
	a := &cfg.Aug
	c, H, W := cfg.Data.Shape[0], cfg.Data.Shape[1], cfg.Data.Shape[2]
	dec := cfg.Backend.Decoder
	if p.direct {
		return dec.Decode(data, p.cropOptions(r))
	}
	img, err := dec.Decode(data, DecodeOptions{Channels: c, MinShorter: a.Resize, MaxBytes: cfg.Backend.MaxDecodeBytes})
	if err != nil {
		return img, err
	}
	if a.Resize > 0 {
		w, h := ShorterSide(img.Width, img.Height, a.Resize)
		img = ResizeImage(img, w, h, a.Interp.pick(img.Width, img.Height, w, h, r))
	}
	if p.affine.Enabled() {
		if img, err = p.affine.apply(img, r); err != nil {
			return img, err
		}
	}
	if a.Pad > 0 {
		img = padImage(img, a.Pad, a.Fill)
	}
	if a.MaxCropSize > 0 {
		size := a.MinCropSize + r.IntN(a.MaxCropSize-a.MinCropSize+1)
		rect, err := p.place(img.Width, img.Height, size, size, r)
		if err != nil {
			return img, err
		}
		img = CropImage(img, rect)
		return ResizeImage(img, W, H, a.Interp.pick(size, size, W, H, r)), nil
	}
	rect, err := p.place(img.Width, img.Height, W, H, r)
	if err != nil {
		return img, err
	}
	if rect.Dx() == img.Width && rect.Dy() == img.Height {
		return img, nil
	}
	return CropImage(img, rect), nil
}

// cropOptions asks the decoder for the crop of Shape's size, placed with r.
func (p *processor) cropOptions(r *rand.Rand) DecodeOptions {
	s := p.cfg.Data.Shape
	return DecodeOptions{Channels: s[0], MaxBytes: p.cfg.Backend.MaxDecodeBytes, Crop: func(w, h int) (image.Rectangle, error) {
		return p.place(w, h, s[2], s[1], r)
	}}
}

// place returns where a cw x ch crop goes in a w x h image.
func (p *processor) place(w, h, cw, ch int, r *rand.Rand) (image.Rectangle, error) {
	a := &p.cfg.Aug
	switch a.Crop {
	case CropRandom:
		return randomRect(w, h, cw, ch, r)
	case CropFixed:
		if err := fits(w, h, a.CropX+cw, a.CropY+ch); err != nil {
			return image.Rectangle{}, err
		}
		return image.Rect(a.CropX, a.CropY, a.CropX+cw, a.CropY+ch), nil
	}
	return centerRect(w, h, cw, ch)
}
