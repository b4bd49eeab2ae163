package mxnet

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// ImageRecordIter takes MXNet's parameter names with Go values or the
// strings of MXNet's C API alike, lists its parameters for an unknown one,
// and uses MXNet's defaults: round_batch fills the last batch from the
// next epoch's first images, fill_value is 255.
func TestImageRecordIterParams(t *testing.T) {
	ctx := context.Background()
	rec := tdPath(mnistJPG, ".rec")
	_, err := newRecIter(ctx, Params{"path_imgrec": rec, "data_shape": "(3, 28, 28)", "batch_size": 8, "shufle": true})
	if err == nil || !strings.Contains(err.Error(), `cannot find argument "shufle"`) ||
		!strings.Contains(err.Error(), "path_imgidx, path_imglist, path_imgrec") {
		t.Errorf("unknown parameter: %v", err)
	}
	if _, err := newRecIter(ctx, Params{"path_imgrec": rec, "data_shape": "(3, 28)", "batch_size": 8}); err == nil ||
		!strings.Contains(err.Error(), "data_shape=(3, 28) (string): not a shape") {
		t.Errorf("a shape of two: %v", err)
	}

	goValues := Params{"path_imgrec": rec, "data_shape": [3]int{3, 28, 28}, "batch_size": 100, "round_batch": false,
		"rand_mirror": true, "dtype": sample.Uint8, "seed": 4, "pad": 2, "rand_crop": true,
		"data_name": "img", "label_name": "cls"}
	cAPI := Params{"path_imgrec": rec, "data_shape": "(3,28,28)", "batch_size": "100", "round_batch": "False",
		"rand_mirror": "True", "dtype": "uint8", "seed": "4", "pad": "2", "rand_crop": "1",
		"data_name": "img", "label_name": "cls"}
	a, err := newRecIter(ctx, goValues)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newRecIter(ctx, cAPI)
	if err != nil {
		t.Fatal(err)
	}
	if want := []tensor.Desc{{Name: "img", Shape: []int{100, 3, 28, 28}, DType: sample.Uint8}}; !reflect.DeepEqual(a.ProvideData(), want) ||
		a.ProvideLabel()[0].Name != "cls" {
		t.Errorf("ProvideData %v, ProvideLabel %v", a.ProvideData(), a.ProvideLabel())
	}
	pa, pb := pass(t, a), pass(t, b)
	if !sameBatches(pa, pb) {
		t.Error("Go values and C API strings give other batches")
	}
	// fill_value's default is MXNet's 255: the padded border of the crops
	// differs from one filled with 0.
	goValues["fill_value"] = 0
	zero, err := newRecIter(ctx, goValues)
	if err != nil {
		t.Fatal(err)
	}
	if sameBatches(pa, pass(t, zero)) {
		t.Error("fill_value 0 gives the batches of the default")
	}

	// round_batch's default: 1000 images in batches of 128 end with 24
	// images of the next epoch, which then starts after them.
	it, err := newRecIter(ctx, Params{"path_imgrec": rec, "data_shape": "(1, 28, 28)", "batch_size": 128})
	if err != nil {
		t.Fatal(err)
	}
	if it.cfg.last != batch.RoundBatch {
		t.Fatalf("round_batch default: %v", it.cfg.last)
	}
	e0 := pass(t, it)
	e1 := pass(t, it)
	all := labelsOf(e0) // the real rows of epoch 0: the 1000 images
	if last := e0[len(e0)-1]; last.Padded != 24 || len(all) != 1000 {
		t.Fatalf("epoch 0: %d images, last batch padded %d", len(all), last.Padded)
	}
	if got := e1[0].Label[0].F32[:3]; !slices.Equal(got, all[24:27]) {
		t.Errorf("epoch 1 starts with labels %v, want those of images 24-26 %v", got, all[24:27])
	}
}
