package mxnet

import (
	"github.com/tensorfeed/tensorfeed/batch"
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

type augOptions struct {
	Resize                         int
	Crop                           cropMode
	CropX, CropY                   int
	MinCropSize, MaxCropSize       int
	Mirror                         mirrorMode
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

func (c iterConfig) opts() []recOpt {
	d, a, b := c.Data, c.Aug, c.Backend
	o := []recOpt{
		oDataShape(d.Shape[0], d.Shape[1], d.Shape[2]),
		oBatch(c.Batch.Size), oLastBatch(c.Batch.Last),
		oIndex(d.IdxPath), oList(d.ListPath), oLabelWidth(d.LabelWidth),
		oSeed(d.Seed), oShuffleBuffer(d.ShuffleBuffer), oOnBad(d.SkipBad),
		oResize(a.Resize), oCropSize(a.MinCropSize, a.MaxCropSize),
		oAffine(augment.Affine{MaxRotateAngle: a.MaxRotateAngle, Rotate: a.Rotate,
			MaxShearRatio: a.MaxShearRatio, MaxAspectRatio: a.MaxAspectRatio,
			MinRandomScale: a.MinRandomScale, MaxRandomScale: a.MaxRandomScale,
			MinImgSize: a.MinImgSize, MaxImgSize: a.MaxImgSize}),
		oPad(a.Pad), oFill(a.Fill), oRandomHSL(a.RandomH, a.RandomS, a.RandomL),
		oInterp(a.Interp), oNormalize(c.Norm),
		oThreads(b.Threads), oDType(b.DType), oDecoder(b.Decoder),
		oMaxDecodeBytes(b.MaxDecodeBytes),
	}
	if d.ShardCount != 0 || d.ShardIndex != 0 {
		o = append(o, oShard(d.ShardCount, d.ShardIndex))
	}
	if d.Shuffle {
		o = append(o, oShuffle(d.Seed))
	}
	if b.Prefetch != 0 {
		o = append(o, oPrefetch(max(b.Prefetch, 0)))
	}
	switch a.Crop {
	case cropRandom:
		o = append(o, oRandCrop())
	case cropFixed:
		o = append(o, oCropAt(a.CropX, a.CropY))
	}
	switch a.Mirror {
	case mirrorRandom:
		o = append(o, oRandMirror())
	case mirrorAlways:
		o = append(o, oMirror())
	}
	return o
}
