package mxnet

import (
	"math"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// int8Want is MXNet's int8 value of raw pixel v less mean: both rounded,
// saturated to [-128, 127].
func int8Want(v uint8, mean float32) int8 {
	return int8(max(-128, min(127, int(v)-int(math.Round(float64(mean))))))
}

// DType int8 gives each pixel less its rounded per-channel mean, saturated
// to [-128, 127], mirrored as uint8 is; Std, Scale and the random
// contrast do not apply.
func TestImageRecordIterDTypeInt8(t *testing.T) {
	cfg := mnistConfig()
	cfg.Data.Shape = [3]int{3, 20, 22}
	cfg.Data.ShardCount = 4
	cfg.Aug = augOptions{Crop: cropRandom, Mirror: mirrorRandom}
	cfg.Norm = augment.Normalize{Mean: [4]float32{-100.4, 20.5, 200}, Std: [4]float32{3, 3, 3}, Scale: 0.5, MaxRandomContrast: 0.2}
	cfg.Backend.DType = sample.Int8
	it := newIter(t, cfg)
	if got := it.ProvideData()[0].DType; got != sample.Int8 {
		t.Fatalf("ProvideData dtype %v, want int8", got)
	}
	i8 := pass(t, it)
	cfg.Backend.DType = sample.Uint8
	u8 := pass(t, newIter(t, cfg))
	if len(i8) != len(u8) || len(i8) == 0 {
		t.Fatalf("%d int8 batches, %d uint8", len(i8), len(u8))
	}
	plane := 20 * 22
	var low, high bool
	for k := range i8 {
		d, raw := i8[k].Data[0], u8[k].Data[0]
		if d.DType != sample.Int8 || len(d.I8) != len(raw.U8) || d.F32 != nil || d.U8 != nil {
			t.Fatalf("batch %d: dtype %v, %d int8 values for %d pixels", k, d.DType, len(d.I8), len(raw.U8))
		}
		if !sameLabels(i8[k], u8[k]) {
			t.Fatalf("batch %d: labels differ from uint8's", k)
		}
		for i, v := range raw.U8 {
			c := i / plane % 3
			want := int8Want(v, cfg.Norm.Mean[c])
			if d.I8[i] != want {
				t.Fatalf("batch %d value %d (channel %d): %d, want %d from pixel %d", k, i, c, d.I8[i], want, v)
			}
			low = low || (want == -128 && int(v)-200 < -128)
			high = high || (want == 127 && int(v)+100 > 127)
		}
	}
	if !low || !high {
		t.Errorf("saturation not exercised: low %v, high %v", low, high)
	}
}

// With a mean image, DType int8 subtracts its rounded value at the pixel's
// position before the mirror, as float32 does.
func TestImageRecordIterDTypeInt8MeanImage(t *testing.T) {
	cfg := mnistConfig()
	cfg.Data.Shape = [3]int{1, 28, 28}
	cfg.Data.ShardCount = 10
	cfg.Aug = augOptions{Mirror: mirrorAlways}
	mean := make([]float32, 28*28)
	for i := range mean {
		mean[i] = float32(i%28)*10 - 100.5 // -100.5 .. 169.5 along x
	}
	cfg.Norm = augment.Normalize{MeanImage: mean}
	cfg.Backend.DType = sample.Int8
	i8 := pass(t, newIter(t, cfg))
	cfg.Backend.DType = sample.Uint8
	u8 := pass(t, newIter(t, cfg))
	for k := range i8 {
		d, raw := i8[k].Data[0], u8[k].Data[0]
		for i, v := range raw.U8 { // v is mirrored: it came from x' = 27-x
			y, x := i/28%28, i%28
			want := int8Want(v, mean[y*28+27-x])
			if d.I8[i] != want {
				t.Fatalf("batch %d value %d (y %d x %d): %d, want %d", k, i, y, x, d.I8[i], want)
			}
		}
	}
}

// sameLabels reports whether a and b hold the same labels and padding.
func sameLabels(a, b *tensor.Batch) bool {
	return a.Padded == b.Padded && slices.Equal(a.Label[0].F32, b.Label[0].F32)
}
