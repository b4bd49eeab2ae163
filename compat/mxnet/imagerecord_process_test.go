package mxnet

import (
	"context"
	"math"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/source"
)

// regionOnly hides a decoder's PlanarDecoder: the Iter then normalises
// from the decoder's buffer in Go.
type regionOnly struct{ decode.RegionDecoder }

// A decoder that writes the normalised crop itself (libjpeg-turbo's
// PlanarDecoder) gives the Iter the batches that the same decoder gives
// without it, bit for bit, with random crops, mirrors, contrast and
// illumination, over two epochs.
func TestIterPlanarMatchesRegion(t *testing.T) {
	dec := decode.Default()
	if _, ok := dec.(decode.PlanarDecoder); !ok {
		t.Skip("the default decoder of this build writes no planar tensor")
	}
	norm := augment.Normalize{Mean: [4]float32{33, 35.5, 40}, Std: [4]float32{70, 75, 80}, Scale: 1.5,
		MaxRandomContrast: 0.3, MaxRandomIllumination: 20}
	iter := func(d decode.Decoder) *recIter {
		it, err := newRec(tdPath("mnist_t10k_1000_jpg", ".rec"), oDataShape(3, 20, 17), oSeed(3),
			oBatch(32), oLastBatch(batch.Pad), oRandCrop(), oRandMirror(),
			oNormalize(norm), oThreads(2), oDecoder(d))
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	planar, region := iter(dec), iter(regionOnly{dec.(decode.RegionDecoder)})
	for epoch := range 2 {
		ctx := source.WithEpoch(context.Background(), epoch)
		var want [][]float32
		for b, err := range region.All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, append([]float32(nil), b.Data[0].F32...))
			b.Release()
		}
		k := 0
		for b, err := range planar.All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			got := b.Data[0].F32
			if k >= len(want) || len(got) != len(want[k]) {
				t.Fatalf("epoch %d: batch %d of %d values", epoch, k, len(got))
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[k][i]) {
					t.Fatalf("epoch %d, batch %d: value %d is %v, want %v", epoch, k, i, got[i], want[k][i])
				}
			}
			b.Release()
			k++
		}
		if k != len(want) || k == 0 {
			t.Fatalf("epoch %d: %d batches, want %d", epoch, k, len(want))
		}
	}
}
