package grid_test

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/grid"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// A batch of two 2x3 RGB images, one red and one blue, in CHW float and in
// HWC bytes, with one padding row and int32 labels.
func TestFromBatchLayouts(t *testing.T) {
	const h, w = 2, 3
	chw := make([]float32, 3*3*h*w) // 3 rows, the last padding
	hwc := make([]uint8, 3*h*w*3)
	i8 := make([]int8, 3*3*h*w) // CHW as ImageRecordIter's int8 dtype: pixel - mean, -128 darkest
	for i := range h * w {
		chw[0*h*w+i] = 1                          // image 0: red plane
		chw[3*h*w+2*h*w+i] = 1                    // image 1: blue plane
		hwc[i*3+0] = 255                          // image 0: red
		hwc[h*w*3+i*3+2] = 255                    // image 1: blue
		chw[6*h*w+i], hwc[2*h*w*3+i*3+1] = 1, 255 // padding: green, never drawn
	}
	for i, v := range chw {
		i8[i] = int8(-128 + 255*int(v))
	}
	labels := tensor.Tensor{Name: "label", Shape: []int{3}, DType: sample.Int32, I32: []int32{4, 7, 9}}
	for _, x := range []tensor.Tensor{
		{Name: "data", Shape: []int{3, 3, h, w}, DType: sample.Float32, F32: chw},
		{Name: "data", Shape: []int{3, h, w, 3}, DType: sample.Uint8, U8: hwc},
		{Name: "data", Shape: []int{3, 3, h, w}, DType: sample.Int8, I8: i8},
	} {
		b := &tensor.Batch{Data: []tensor.Tensor{x}, Label: []tensor.Tensor{labels}, Padded: 1}
		img, err := grid.FromBatch(b, "data", "label", grid.Scale(10), grid.Cols(4), grid.ClassNames("", "", "", "", "four"))
		if err != nil {
			t.Fatal(err)
		}
		// Two tiles of 30x20 and a label strip of 15: 2*31+1 by 20+15+2.
		if bd := img.Bounds(); bd.Dx() != 63 || bd.Dy() != 37 {
			t.Fatalf("%v: size %v", x.DType, bd)
		}
		at := func(x, y int) color.RGBA { return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) }
		if c := at(5, 5); c.R != 255 || c.B != 0 {
			t.Errorf("%v: image 0 is %v, want red", x.DType, c)
		}
		if c := at(36, 5); c.B != 255 || c.R != 0 {
			t.Errorf("%v: image 1 is %v, want blue", x.DType, c)
		}
	}
}

func TestFromBatchErrors(t *testing.T) {
	b := &tensor.Batch{Data: []tensor.Tensor{
		{Name: "flat", Shape: []int{1, 10}, DType: sample.Float32, F32: make([]float32, 10)},
		{Name: "ints", Shape: []int{1, 4}, DType: sample.Int32, I32: make([]int32, 4)},
		{Name: "nochan", Shape: []int{1, 5, 6, 7}, DType: sample.Uint8, U8: make([]uint8, 210)},
	}}
	for _, c := range []struct{ data, label, msg string }{
		{"missing", "", `no tensor "missing"`},
		{"flat", "", "not a square image"},
		{"ints", "", "want float32, uint8 or int8"},
		{"nochan", "", "no channel axis"},
		{"flat", "nolabel", `no tensor "nolabel"`},
	} {
		if _, err := grid.FromBatch(b, c.data, c.label); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s/%s: %v, want %q", c.data, c.label, err, c.msg)
		}
	}
}

// Draw a batch of flat MNIST-like rows, normalised to [-1, 1], with their
// labels, and write it as a PNG.
func ExampleFromBatch() {
	const n = 4
	x := tensor.Tensor{Name: "image", Shape: []int{n, 784}, DType: sample.Float32, F32: make([]float32, n*784)}
	for i := range x.F32 {
		x.F32[i] = float32(i%28)/13.5 - 1 // a horizontal ramp
	}
	y := tensor.Tensor{Name: "label", Shape: []int{n}, DType: sample.Int32, I32: []int32{3, 1, 4, 1}}
	b := &tensor.Batch{Data: []tensor.Tensor{x}, Label: []tensor.Tensor{y}}

	img, err := grid.FromBatch(b, "image", "label") // 28x28 gray, drawn at twice the size
	if err != nil {
		fmt.Println(err)
		return
	}
	dir := tempDir()
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "batch.png")
	if err := grid.WritePNG(path, img); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(img.Bounds().Dx(), "x", img.Bounds().Dy(), "pixels")
	// Output: 229 x 73 pixels
}
