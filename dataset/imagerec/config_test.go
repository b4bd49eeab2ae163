package imagerec_test

import (
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// iterConfig is a table row of the tests: the settings of an Iter as
// plain fields, so that a test can start from a base and change one, and
// opts turns it into the options New takes.
type iterConfig struct {
	Data    dataOptions
	Batch   batchOptions
	Aug     augOptions
	Norm    augment.Normalize
	Backend backendOptions
}

type dataOptions struct {
	RecPath, IdxPath, ListPath string
	Shape                      [3]int
	LabelWidth                 int
	Shuffle                    bool
	ShuffleBuffer              int
	Seed                       uint64
	ShardCount, ShardIndex     int
	SkipBad                    *source.SkipPolicy
}

type batchOptions struct {
	Size int
	Last batch.Policy
}

const (
	cropCenter = iota
	cropRandom
	cropFixed
)

const (
	mirrorNone = iota
	mirrorRandom
	mirrorAlways
)

type augOptions struct {
	Resize                         int
	Crop                           int
	CropX, CropY                   int
	MinCropSize, MaxCropSize       int
	Mirror                         int
	MaxRotateAngle, Rotate         int
	MaxShearRatio, MaxAspectRatio  float32
	MinRandomScale, MaxRandomScale float32
	MinImgSize, MaxImgSize         float32
	Pad                            int
	Fill                           uint8
	RandomH, RandomS, RandomL      int
	Interp                         augment.Interp
}

type backendOptions struct {
	Threads        int
	Prefetch       int
	DType          sample.DType
	Decoder        decode.Decoder
	MaxDecodeBytes int64
}

func (c iterConfig) opts() []imagerec.Option {
	d, a, b := c.Data, c.Aug, c.Backend
	o := []imagerec.Option{
		imagerec.DataShape(d.Shape[0], d.Shape[1], d.Shape[2]),
		imagerec.Batch(c.Batch.Size), imagerec.LastBatch(c.Batch.Last),
		imagerec.Index(d.IdxPath), imagerec.List(d.ListPath), imagerec.LabelWidth(d.LabelWidth),
		imagerec.Seed(d.Seed), imagerec.ShuffleBuffer(d.ShuffleBuffer), imagerec.OnBad(d.SkipBad),
		imagerec.Resize(a.Resize), imagerec.CropSize(a.MinCropSize, a.MaxCropSize),
		imagerec.Affine(augment.Affine{MaxRotateAngle: a.MaxRotateAngle, Rotate: a.Rotate,
			MaxShearRatio: a.MaxShearRatio, MaxAspectRatio: a.MaxAspectRatio,
			MinRandomScale: a.MinRandomScale, MaxRandomScale: a.MaxRandomScale,
			MinImgSize: a.MinImgSize, MaxImgSize: a.MaxImgSize}),
		imagerec.Pad(a.Pad), imagerec.Fill(a.Fill), imagerec.RandomHSL(a.RandomH, a.RandomS, a.RandomL),
		imagerec.Interp(a.Interp), imagerec.Normalize(c.Norm),
		imagerec.Threads(b.Threads), imagerec.DType(b.DType), imagerec.Decoder(b.Decoder),
		imagerec.MaxDecodeBytes(b.MaxDecodeBytes),
	}
	if d.ShardCount != 0 || d.ShardIndex != 0 {
		o = append(o, imagerec.Shard(d.ShardCount, d.ShardIndex))
	}
	if d.Shuffle {
		o = append(o, imagerec.Shuffle(d.Seed))
	}
	if b.Prefetch != 0 {
		o = append(o, imagerec.Prefetch(max(b.Prefetch, 0)))
	}
	switch a.Crop {
	case cropRandom:
		o = append(o, imagerec.RandCrop())
	case cropFixed:
		o = append(o, imagerec.CropAt(a.CropX, a.CropY))
	}
	switch a.Mirror {
	case mirrorRandom:
		o = append(o, imagerec.RandMirror())
	case mirrorAlways:
		o = append(o, imagerec.Mirror())
	}
	return o
}
