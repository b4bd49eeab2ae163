package main

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/sink"
)

// TestTrainPipeAlignment runs the training pipeline with an extra "index"
// tensor (each sample's position in the files) and checks what the model
// is fed: every epoch holds distinct samples, each image and label is the
// one at its index in the files (the shuffle keeps them together), the
// pixels are normalised as the table says, and epochs differ in order.
func TestTrainPipeAlignment(t *testing.T) {
	const dir = "../../data/mnist"
	images, err := idx.ReadFile(dir + "/train-images-idx3-ubyte.gz")
	if err != nil {
		t.Fatal(err)
	}
	labels, err := idx.ReadFile(dir + "/train-labels-idx1-ubyte.gz")
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultConfig()
	cfg.DataDir = dir
	cfg.TrainLimit = 300
	cfg.BatchSize = 32
	s := sink.New(cfg.BatchSize,
		[]sink.Field[mnist.Sample]{
			sink.Float32("image", []int{mnist.Pixels}, func(s mnist.Sample, dst []float32) {
				for i, p := range s.Image {
					dst[i] = float32((float64(p)/255 - pixelMean) / pixelStd)
				}
			}),
		},
		[]sink.Field[mnist.Sample]{
			sink.Int32("label", nil, func(s mnist.Sample, dst []int32) { dst[0] = int32(s.Label) }),
			sink.Int32("index", nil, func(s mnist.Sample, dst []int32) { dst[0] = int32(s.Index) }),
		})
	pipe, perEpoch, err := trainPipe(context.Background(), cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	if perEpoch != 288 {
		t.Fatalf("perEpoch = %d, want 288 (9 full batches of 32)", perEpoch)
	}
	var orders [][]int
	for _, pass := range pipe.Epochs(context.Background(), 2) {
		var order []int
		for ts, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			img, _ := ts.Get("image")
			lbl, _ := ts.Get("label")
			idx, _ := ts.Get("index")
			if img.Shape[0] != 32 {
				t.Fatalf("batch of %d rows", img.Shape[0])
			}
			for r, i := range idx.I32 {
				if i < 0 || i >= 300 {
					t.Fatalf("index %d outside the first 300 samples", i)
				}
				if want := int32(labels.Raw[i]); lbl.I32[r] != want {
					t.Fatalf("sample %d: label %d, file says %d", i, lbl.I32[r], want)
				}
				pix := images.Raw[int(i)*mnist.Pixels : int(i+1)*mnist.Pixels]
				row := img.F32[r*mnist.Pixels : (r+1)*mnist.Pixels]
				for k, p := range pix {
					want := (float64(p)/255 - pixelMean) / pixelStd
					if math.Abs(float64(row[k])-want) > 1e-5 {
						t.Fatalf("sample %d pixel %d: %v, want %v", i, k, row[k], want)
					}
				}
				order = append(order, int(i))
			}
		}
		sorted := slices.Clone(order)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(order) || len(order) != 288 {
			t.Fatalf("epoch of %d samples, %d distinct: want 288 distinct", len(order), len(slices.Compact(sorted)))
		}
		orders = append(orders, order)
	}
	if slices.Equal(orders[0], orders[1]) {
		t.Error("both epochs have the same order")
	}
	if slices.IsSorted(orders[0]) {
		t.Error("epoch 0 is in file order: not shuffled")
	}
}

// TestNewSinkNormalises: the model's sink, built from mnist.Sample's tags
// with sink.Scale, writes (x/255 - mean)/std for every pixel byte x, and
// the label as int32.
func TestNewSinkNormalises(t *testing.T) {
	var img [mnist.Pixels]uint8
	for i := range img {
		img[i] = uint8(i % 256)
	}
	s := newSink(1)
	ts, err := s.Assemble(batch.Batch[mnist.Sample]{Samples: []mnist.Sample{{Image: &img, Label: 7}}})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := ts.Get("image")
	y, _ := ts.Get("label")
	for i, p := range img {
		want := (float64(p)/255 - pixelMean) / pixelStd
		if math.Abs(float64(x.F32[i])-want) > 1e-5 {
			t.Fatalf("pixel %d (%d): %v, want %v", i, p, x.F32[i], want)
		}
	}
	if !slices.Equal(y.I32, []int32{7}) || !slices.Equal(x.Shape, []int{1, mnist.Pixels}) {
		t.Errorf("label %v, image shape %v", y.I32, x.Shape)
	}
}
