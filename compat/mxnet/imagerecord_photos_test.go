package mxnet

import (
	"context"
	"math"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/source"
)

// The fast path (a cropped decode normalised straight from the decoder's
// buffer through per-channel tables, reseeded generators, recycled
// batches) gives, bit for bit, what the steps one by one give: the whole
// image decoded, the random crop cut out of it, the mirror drawn, and each
// value computed as (pixel - mean) * (1/std) + 0 in float32, for two
// epochs of photos with each decoder.
func TestIterPhotosMatchReference(t *testing.T) {
	path := recimages.Photos(t)
	const parts = 24 // 64 photos
	norm := augment.Normalize{Mean: [4]float32{123.68, 116.28, 103.53}, Std: [4]float32{58.395, 57.12, 57.375}}
	var recs [][]byte
	for rec, err := range recordio.Open(path, inputsplit.RecordIO(parts, 0).(recordio.Option)).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec.Data)
	}
	const size = 224
	per := 3 * size * size
	for _, dec := range recimages.Decoders() {
		it, err := newRec(path, oDataShape(3, size, size), oSeed(9), oShard(parts, 0),
			oBatch(16), oLastBatch(batch.Pad), oRandCrop(), oRandMirror(),
			oNormalize(norm), oThreads(2), oDecoder(dec))
		if err != nil {
			t.Fatal(err)
		}
		for epoch := range 2 {
			i := 0
			for b, err := range it.All(source.WithEpoch(context.Background(), epoch)) {
				if err != nil {
					t.Fatal(err)
				}
				data := b.Data[0].F32
				for k := range b.Len() - b.Padded {
					want := reference(t, dec, recs[i], norm, source.NewRand(9, epoch, i), size)
					got := data[k*per : (k+1)*per]
					for j := range want {
						if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
							t.Fatalf("%s, epoch %d, image %d: value %d is %v, want %v", dec.Name(), epoch, i, j, got[j], want[j])
						}
					}
					i++
				}
				b.Release()
			}
			if i != len(recs) {
				t.Fatalf("%s: %d images, want %d", dec.Name(), i, len(recs))
			}
		}
	}
}

// reference computes one image of the pipeline step by step.
func reference(t *testing.T, dec decode.Decoder, rec []byte, norm augment.Normalize, r interface {
	IntN(int) int
}, size int) []float32 {
	t.Helper()
	_, jpg, err := imagerec.ParseRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	full, err := dec.Decode(jpg, decode.Options{Channels: 3})
	if err != nil {
		t.Fatal(err)
	}
	y := r.IntN(full.Height - size + 1)
	x := r.IntN(full.Width - size + 1)
	mirror := r.IntN(2) == 1
	out := make([]float32, 3*size*size)
	for c := range 3 {
		mul := float32(1) * 1 / norm.Std[c]
		for yy := range size {
			for xx := range size {
				v := full.Pix[((y+yy)*full.Width+x+xx)*3+c]
				dx := xx
				if mirror {
					dx = size - 1 - xx
				}
				out[c*size*size+yy*size+dx] = (float32(v)-norm.Mean[c])*mul + 0
			}
		}
	}
	return out
}
