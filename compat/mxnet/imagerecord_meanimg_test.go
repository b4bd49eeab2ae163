package mxnet

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/sample"
)

// TestMeanImg checks MXNet's mean_img: when the file is missing, the first
// pass computes the per-pixel mean of the data, saves it in MXNet's NDArray
// format and subtracts it; a later Iter reads the saved file.
func TestMeanImg(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mean.nd")
	cfg := mnistConfig()
	cfg.Batch.Last = batch.Keep
	it, err := newRec(cfg.Data.RecPath, append(cfg.opts(), oMeanImg(path))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("newRecIter wrote the mean image; the first pass should")
	}
	got := pass(t, it)

	// The mean of the raw pixels, computed here.
	raw := cfg
	raw.Backend.DType = sample.Uint8
	per := 3 * 28 * 28
	sum := make([]float64, per)
	n := 0
	for _, b := range pass(t, newIter(t, raw)) {
		for r := range b.Len() {
			for i, v := range b.Data[0].U8[r*per : (r+1)*per] {
				sum[i] += float64(v)
			}
			n++
		}
	}
	want := make([]float32, per)
	for i := range sum {
		want[i] = float32(sum[i] / float64(n))
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	shape, mean, err := imagerec.ParseMeanImage(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shape, []int{3, 28, 28}) || !slices.Equal(mean, want) {
		t.Fatalf("saved mean image: shape %v, values differ: %v", shape, !slices.Equal(mean, want))
	}

	withMean := cfg
	withMean.Norm = augment.Normalize{MeanImage: want}
	if !sameBatches(got, pass(t, newIter(t, withMean))) {
		t.Error("the first pass does not subtract the computed mean image")
	}
	again, err := newRec(cfg.Data.RecPath, append(cfg.opts(), oMeanImg(path))...)
	if err != nil {
		t.Fatal(err)
	}
	if !sameBatches(got, pass(t, again)) {
		t.Error("an Iter reading the saved mean image gives other batches")
	}
}

func TestMeanImgErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := mnistConfig()
	wrong := filepath.Join(dir, "wrong.nd")
	if err := imagerec.WriteMeanImage(wrong, []int{1, 28, 28}, make([]float32, 28*28)); err != nil {
		t.Fatal(err)
	}
	if _, err := newRec(cfg.Data.RecPath, append(cfg.opts(), oMeanImg(wrong))...); !errors.Is(err, imagerec.ErrMeanImage) {
		t.Errorf("a mean image of another shape: %v", err)
	}
	// A missing directory: the pass that should save it fails.
	it, err := newRec(cfg.Data.RecPath, append(cfg.opts(), oMeanImg(filepath.Join(dir, "no", "m.nd")))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := passErr(it); err == nil {
		t.Error("saving into a missing directory: no error")
	}
}

// TestLabels checks path_imglist's table: the first label_width labels of
// every entry by its index; too few labels or a repeated index is an
// error wrapping imagerec.ErrList.
func TestLabels(t *testing.T) {
	entries := []imagerec.ListEntry{
		{Index: 10, Labels: []float32{1, 2, 3}},
		{Index: 7, Labels: []float32{4, 5}},
	}
	l, err := newRecLabels(entries, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := lookup(l, 10); !ok || !reflect.DeepEqual(got, []float32{1, 2}) {
		t.Errorf("Lookup(10) = %v, %v", got, ok)
	}
	if got, ok := lookup(l, 7); !ok || !reflect.DeepEqual(got, []float32{4, 5}) {
		t.Errorf("Lookup(7) = %v, %v", got, ok)
	}
	if _, ok := lookup(l, 0); ok {
		t.Error("Lookup(0) found a label")
	}
	if len(l) != 2 {
		t.Errorf("%d ids, want 2", len(l))
	}
	if _, err := newRecLabels(entries, 3); !errors.Is(err, imagerec.ErrList) {
		t.Errorf("width 3 with a 2-label entry: %v", err)
	}
	dup := append(entries, imagerec.ListEntry{Index: 7, Labels: []float32{0, 0}})
	if _, err := newRecLabels(dup, 1); !errors.Is(err, imagerec.ErrList) {
		t.Errorf("duplicate index: %v", err)
	}
}

func lookup(l recLabels, id uint64) ([]float32, bool) {
	v, ok := l[id]
	return v, ok
}
