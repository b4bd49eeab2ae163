package mxnet

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/imagegeom"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/sample"
)

// processor turns one record into one row of a batch: parse, decode,
// augment, normalise, written straight into the batch's tensors.
type processor struct {
	cfg *recConfig
	// direct: no step changes the geometry before the crop, so the decoder
	// crops (the Go decoder then converts only the crop's pixels).
	direct bool
	// region, when set, lends its decoded pixels for a direct crop that
	// needs no colour jitter, so the crop is never copied.
	region decode.RegionDecoder
	// planar, when set, writes a direct crop straight into a float32 row
	// as it decodes: no image in between.
	planar decode.PlanarDecoder
	// scratch lends the raw CHW pixels of one image to the int8 conversion.
	scratch sync.Pool
	// draws holds idle *draw values.
	draws sync.Pool
	// bufs holds the buffers of records' bytes: the records of the .rec
	// files read in order are read into them (recordio.Buffers); with
	// borrowed, a record's bytes are valid only until the next record is
	// read (the index's read-ahead reuses its buffers), so parse copies
	// them into one. Run hands them back.
	borrowed bool
	bufs     recordBufs
	// pad adds pad pixels of fill on every side; jitter shifts hue,
	// saturation and lightness (random_h, random_s, random_l); resize
	// scales the shorter side to resize; cropResize scales a random-size
	// crop to the data shape. Those that are off are nil.
	pad, jitter, resize, affine, cropResize augment.Aug
}

// draw is a worker's generator and crop callback, made once and reseeded
// for every record, so that an image costs no allocation for them.
type draw struct {
	pcg  rand.PCG
	r    *rand.Rand
	crop func(w, h int) (image.Rectangle, error)
	// planar draws the mirror, then the contrast and illumination, for
	// the planar decoder, as run does after the crop.
	planar func() decode.Planar
}

// getDraw returns a draw seeded as source.NewRand(seed, epoch, index) is:
// its r gives the same numbers. Put it back in p.draws when done.
func (p *processor) getDraw(epoch, index int) *draw {
	d, _ := p.draws.Get().(*draw)
	if d == nil {
		d = &draw{}
		d.r = rand.New(&d.pcg)
		s := p.cfg.shape
		d.crop = func(w, h int) (image.Rectangle, error) { return p.place(w, h, s[2], s[1], d.r) }
		d.planar = func() decode.Planar {
			pl := decode.Planar{Mirror: p.mirror(d.r), Mean: p.cfg.norm.Mean}
			pl.Mul, pl.Bias = p.cfg.norm.Linear(s[0], d.r)
			return pl
		}
	}
	seeded.SeedPCG(&d.pcg, p.cfg.seed, epoch, index)
	return d
}

func newProcessor(cfg *recConfig) *processor {
	p := &processor{cfg: cfg, pad: augment.Pad(cfg.pad, cfg.fill),
		jitter: augment.ColorJitter(cfg.randomH, cfg.randomS, cfg.randomL)}
	if cfg.resize > 0 {
		p.resize = augment.Resize(cfg.resize, cfg.interp)
	}
	if cfg.affine.Enabled() {
		p.affine = augment.RandomAffine(cfg.affine)
	}
	if cfg.maxCropSize > 0 {
		p.cropResize = augment.ResizeTo(cfg.shape[2], cfg.shape[1], cfg.interp)
	}
	p.direct = cfg.resize == 0 && p.affine == nil && cfg.pad == 0 && cfg.maxCropSize == 0
	if rd, ok := cfg.decoder.(decode.RegionDecoder); ok && p.direct && !cfg.jitter() {
		p.region = rd
		if pd, ok := rd.(decode.PlanarDecoder); ok && cfg.shape[0] == 3 {
			p.planar = pd
		}
	}
	return p
}

// jitter reports whether a colour jitter is configured.
func (c *recConfig) jitter() bool { return c.randomH != 0 || c.randomS != 0 || c.randomL != 0 }

// parse reads rec, record n of its pass, into a job of the given epoch:
// the image's bytes and its labels, or the positioned error of a bad
// header or label, which the job's fill returns.
func (p *processor) parse(rec recordio.Record, epoch, n int) recJob {
	cfg := p.cfg
	// Under batch.Pad and batch.RoundBatch the first batch of a pass is
	// repeated as the padding of its last, after its fill: its records
	// keep bytes of their own, and a buffer of the pool they were read
	// into goes back at once.
	padding := n < cfg.batchSize && (cfg.last == batch.Pad || cfg.last == batch.RoundBatch)
	j := recJob{rec: rec, epoch: epoch, pooled: !padding}
	switch {
	case padding:
		j.rec.Data = bytes.Clone(rec.Data)
		if !p.borrowed {
			p.bufs.put(rec.Data)
		}
	case p.borrowed:
		j.rec.Data = p.bufs.get(len(rec.Data))
		copy(j.rec.Data, rec.Data)
	}
	h, data, err := imagerec.ParseRecord(j.rec.Data)
	if err != nil {
		j.err = recordErr(rec, err)
		return j
	}
	j.image = data
	if cfg.labels == nil && h.Flag <= 0 && cfg.labelWidth <= 1 {
		j.label = h.Label // what recordLabels gives, without a slice
		return j
	}
	if j.labels, err = recordLabels(h, cfg.labels, cfg.labelWidth); err != nil {
		j.err = recordErr(rec, err)
	}
	return j
}

// run decodes and augments j's image for its epoch into one row of data
// (f32, u8 or i8, by dtype). Its random draws come from
// source.NewRand(seed, epoch, rec.Index), in this order: resize
// interpolation, affine warp, crop size, crop position (y, then x), colour
// jitter, mirror, contrast and illumination; a step that is off draws
// nothing.
func (p *processor) run(j recJob, f32 []float32, u8 []uint8, i8 []int8) error {
	if j.pooled {
		// The fill is the record's last reader.
		defer p.bufs.put(j.rec.Data)
	}
	if j.err != nil {
		return j.err
	}
	cfg := p.cfg
	rec, data, epoch := j.rec, j.image, j.epoch
	d := p.getDraw(epoch, rec.Index)
	defer p.draws.Put(d)
	r := d.r
	if p.planar != nil && f32 != nil && cfg.norm.MeanImage == nil {
		// Normalised by the decoder, row group by row group.
		ok, err := p.planar.DecodePlanar(data, p.cropOptions(d), f32, d.planar)
		if err != nil {
			return recordErr(rec, err)
		}
		if ok {
			return nil
		}
	}
	if p.region != nil {
		// Normalise straight from the decoder's buffer.
		full, rect, release, err := p.region.DecodeRegion(data, p.cropOptions(d))
		if err != nil {
			return recordErr(rec, err)
		}
		p.write(f32, u8, i8, full, rect, r)
		release()
		return nil
	}
	img, err := p.image(data, d)
	if err != nil {
		return recordErr(rec, err)
	}
	if img, err = p.jitter(img, r); err != nil {
		return recordErr(rec, err)
	}
	p.write(f32, u8, i8, img, image.Rect(0, 0, img.Width, img.Height), r)
	return nil
}

// write draws the mirror and writes rectangle rect of img into the row
// (f32, u8 or i8, by dtype).
func (p *processor) write(f32 []float32, u8 []uint8, i8 []int8, img sample.Image, rect image.Rectangle, r *rand.Rand) {
	mirror := p.mirror(r)
	switch {
	case u8 != nil:
		imagegeom.ToCHWUint8Rect(u8, img, rect, mirror)
	case i8 != nil:
		px := p.pixels(len(i8))
		imagegeom.ToCHWUint8Rect(*px, img, rect, false)
		p.int8(i8, *px, mirror)
		p.scratch.Put(px)
	default:
		p.cfg.norm.IntoRect(f32, img, rect, mirror, r)
	}
}

// pixels returns a scratch buffer of n bytes; put it back in p.scratch.
func (p *processor) pixels(n int) *[]uint8 {
	if b, ok := p.scratch.Get().(*[]uint8); ok && len(*b) == n {
		return b
	}
	b := make([]uint8, n)
	return &b
}

// int8 writes the raw CHW pixels px into dst as MXNet's ImageRecordIter
// does for dtype int8: each value less its mean, both rounded to integers
// (the per-channel Mean, or the MeanImage value at the pixel's position
// before the mirror, as for float32), saturated to [-128, 127], then
// mirrored. Std, Scale and the random contrast and illumination do not
// apply.
func (p *processor) int8(dst []int8, px []uint8, mirror bool) {
	s := p.cfg.shape
	ch, h, w := s[0], s[1], s[2]
	plane := h * w
	norm := &p.cfg.norm
	for c := range ch {
		mean := int(math.Round(float64(norm.Mean[min(c, 3)])))
		src, d := px[c*plane:(c+1)*plane], dst[c*plane:(c+1)*plane]
		for y := range h {
			for dx := range w {
				x := dx // stores forwards, loads backwards when mirrored
				if mirror {
					x = w - 1 - dx
				}
				i := y*w + x
				m := mean
				if norm.MeanImage != nil {
					m = int(math.Round(float64(norm.MeanImage[c*plane+i])))
				}
				d[y*w+dx] = int8(max(-128, min(127, int(src[i])-m)))
			}
		}
	}
}

// mirror draws whether the image is flipped.
func (p *processor) mirror(r *rand.Rand) bool {
	m := p.cfg.mirror
	return m == mirrorAlways || (m == mirrorRandom && r.IntN(2) == 1)
}

// image decodes data and applies the geometric steps, giving an image of
// exactly Shape's size and channels.
func (p *processor) image(data []byte, d *draw) (sample.Image, error) {
	cfg := p.cfg
	c, H, W := cfg.shape[0], cfg.shape[1], cfg.shape[2]
	dec := cfg.decoder
	r := d.r
	if p.direct {
		return dec.Decode(data, p.cropOptions(d))
	}
	img, err := dec.Decode(data, decode.Options{Channels: c, MinShorter: cfg.resize, MaxBytes: cfg.maxDecodeBytes})
	if err != nil {
		return img, err
	}
	if cfg.resize > 0 {
		img, _ = p.resize(img, r) // cannot fail
	}
	if p.affine != nil {
		if img, err = p.affine(img, r); err != nil {
			return img, err
		}
	}
	if cfg.pad > 0 {
		img, _ = p.pad(img, nil) // cannot fail
	}
	if cfg.maxCropSize > 0 {
		size := cfg.minCropSize + r.IntN(cfg.maxCropSize-cfg.minCropSize+1)
		rect, err := p.place(img.Width, img.Height, size, size, r)
		if err != nil {
			return img, err
		}
		return p.cropResize(augment.CropImage(img, rect), r)
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

// cropOptions asks the decoder for the crop of Shape's size, placed with
// d's generator.
func (p *processor) cropOptions(d *draw) decode.Options {
	return decode.Options{Channels: p.cfg.shape[0], MaxBytes: p.cfg.maxDecodeBytes, Crop: d.crop}
}

// place returns where a cw x ch crop goes in a w x h image.
func (p *processor) place(w, h, cw, ch int, r *rand.Rand) (image.Rectangle, error) {
	c := p.cfg
	switch c.crop {
	case cropRandom:
		return imagegeom.RandomRect(w, h, cw, ch, r)
	case cropFixed:
		return imagegeom.FixedRect(w, h, c.cropX, c.cropY, cw, ch)
	}
	return imagegeom.CenteredRect(w, h, cw, ch)
}
