package mxnet_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// imagerecData is where package imagerec keeps its test records.
const imagerecData = "../../dataset/imagerec/testdata/"

// MXNet's mx.io.ImageRecordIter(path_imgrec=..., data_shape=(3, 28, 28),
// batch_size=256, rand_mirror=True, scale=1/255): 28 x 28 RGB crops of the
// MNIST test records, normalised to [0, 1]; the last batch is filled with
// the first images (round_batch), 24 of them.
func ExampleImageRecordIter() {
	feed, err := mxnet.ImageRecordIter(context.Background(), mxnet.Params{
		"path_imgrec": imagerecData + "mnist_t10k_1000_jpg.rec",
		"data_shape":  "(3, 28, 28)", "batch_size": 256,
		"rand_mirror": true, "scale": 1.0 / 255,
		"preprocess_threads": 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range feed.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Data[0].Name, b.Data[0].DType, b.Data[0].Shape, b.Label[0].Name, "labels", b.Label[0].F32[:5], "padded", b.Padded)
		b.Release() // done with it: its memory may hold a later batch
	}
	// Output:
	// data float32 [256 3 28 28] softmax_label labels [7 2 1 0 4] padded 0
	// data float32 [256 3 28 28] softmax_label labels [2 8 2 6 8] padded 0
	// data float32 [256 3 28 28] softmax_label labels [2 2 6 3 2] padded 0
	// data float32 [256 3 28 28] softmax_label labels [1 6 4 7 1] padded 24
}

// dtype int8 gives MXNet's int8 batches: each pixel less its rounded
// per-channel mean, saturated to [-128, 127].
func ExampleImageRecordIter_int8() {
	feed, err := mxnet.ImageRecordIter(context.Background(), mxnet.Params{
		"path_imgrec": imagerecData + "mnist_t10k_1000_png_gray.rec",
		"data_shape":  "(1, 28, 28)", "batch_size": 500,
		"mean_r": 127.5, "dtype": "int8",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range feed.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		px := b.Data[0].I8
		fmt.Println(b.Data[0].Name, b.Data[0].DType, b.Data[0].Shape, "min", slices.Min(px), "max", slices.Max(px))
		b.Release()
	}
	// Output:
	// data int8 [500 1 28 28] min -128 max 127
	// data int8 [500 1 28 28] min -128 max 127
}

// path_imgrec may list several .rec files, or name a directory whose .rec
// files are read in name order: they are one stream, which num_parts
// would cut as one.
func ExampleImageRecordIter_severalFiles() {
	feed, err := mxnet.ImageRecordIter(context.Background(), mxnet.Params{
		"path_imgrec": imagerecData + "mnist_t10k_1000_jpg.rec;" + imagerecData + "mnist_t10k_1000_png_gray.rec",
		"data_shape":  []int{1, 28, 28}, "batch_size": 300,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range feed.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Len(), "images,", b.Padded, "padding")
		b.Release()
	}
	// Output:
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 0 padding
	// 300 images, 100 padding
}

// mean_img names MXNet's mean image file. When it is missing, the first
// pass computes the per-pixel mean of the data and saves it there, in
// MXNet's NDArray format; later iterators read it.
func ExampleImageRecordIter_meanImg() {
	dir, err := os.MkdirTemp("", "meanimg")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mean.nd")
	feed, err := mxnet.ImageRecordIter(context.Background(), mxnet.Params{
		"path_imgrec": imagerecData + "mnist_t10k_1000_jpg.rec",
		"data_shape":  "(1, 28, 28)", "batch_size": 500, "mean_img": path,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range feed.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		b.Release()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	shape, mean, err := imagerec.ParseMeanImage(data, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("saved a mean image of shape", shape, "with", len(mean), "values")
	// Output:
	// saved a mean image of shape [1 28 28] with 784 values
}

// Files are reached by URL, here from an HTTP server on 127.0.0.1 that
// serves imagerec's test files: the .rec, and its .lst read through the
// transport that storage (tensorfeed's parameter) gives.
func ExampleImageRecordIter_storage() {
	srv := httptest.NewServer(http.FileServer(http.Dir(imagerecData)))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()

	feed, err := mxnet.ImageRecordIter(context.Background(), mxnet.Params{
		"path_imgrec":  srv.URL + "/mnist_t10k_1000_jpg.rec",
		"path_imglist": srv.URL + "/mnist_t10k_1000_jpg.lst",
		"data_shape":   "(3, 28, 28)", "batch_size": 500,
		"storage": []storage.Option{storage.Transport(tr)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, err := range feed.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Data[0].Shape, b.Label[0].F32[:3])
		b.Release()
	}
	// Output:
	// [500 3 28 28] [7 2 1]
	// [500 3 28 28] [3 9 5]
}

// skip_bad skips bad records, here up to half of them: the bomb among five
// MNIST records is skipped and the four good images fill two batches (the
// short last batch kept: batch.Keep for round_batch).
func ExampleImageRecordIter_skipBad() {
	rec, idx, remove, err := writeBombRec()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer remove()
	feed, err := mxnet.ImageRecordIter(context.Background(), mxnet.Params{
		"path_imgrec": rec, "path_imgidx": idx,
		"data_shape": "(1, 28, 28)", "batch_size": 2, "preprocess_threads": 2,
		"skip_bad": source.SkipBad(0.5), "round_batch": batch.Keep,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	batches, images := 0, 0
	for t, err := range feed.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		batches++
		images += t.Len()
		t.Release()
	}
	var steps []string
	skipped := int64(0)
	for _, s := range feed.Stats() {
		steps = append(steps, s.Name)
		skipped += s.Skipped // the step "tensorize"'s: the image that did not decode
	}
	fmt.Println(images, "images in", batches, "batches,", skipped, "skipped")
	fmt.Println("steps:", strings.Join(steps, " -> "))
	// Output:
	// 4 images in 2 batches, 1 skipped
	// steps: records -> parse -> batch -> tensorize -> buffered
}

// writeBombRec writes five MNIST records, the third a JPEG header that
// claims an 8000 x 8000 progressive image, and their index, data.rec and
// data.idx, into a new temporary directory, and returns their paths and a
// function that removes the directory.
func writeBombRec() (rec, idx string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		return "", "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	rec, idx = filepath.Join(dir, "data.rec"), filepath.Join(dir, "data.idx")
	src, err := source.Collect(context.Background(), recordio.Open(imagerecData+"mnist_t10k_1000_jpg.rec"))
	if err != nil {
		remove()
		return "", "", nil, err
	}
	out, err := os.Create(rec)
	if err != nil {
		remove()
		return "", "", nil, err
	}
	defer out.Close()
	w := recordio.NewWriter(out)
	var lines []byte
	for i, r := range src[:5] {
		payload := r.Data
		if i == 2 {
			h, _, err := imagerec.ParseRecord(r.Data)
			if err != nil {
				remove()
				return "", "", nil, err
			}
			payload = imagerec.AppendRecord(nil, h, fixture.JPEGBomb(8000, 8000, true))
		}
		lines = recordio.AppendIndexLine(lines, int64(i), w.Tell())
		if err := w.Write(payload); err != nil {
			remove()
			return "", "", nil, err
		}
	}
	if err := os.WriteFile(idx, lines, 0o644); err != nil {
		remove()
		return "", "", nil, err
	}
	return rec, idx, remove, nil
}
