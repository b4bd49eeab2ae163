package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/image/grid"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

var showCommand = command{
	name:    "show",
	args:    "[-n 64] [--cols 8] --grid OUT.png PATH",
	summary: "draw the first images of a dataset into a PNG grid, each with its label",
	doc: `Show draws the first N images of an image dataset into a PNG grid, each image's label written under it, so that you can see what a file holds before training on it.

PATH is an IDX image file, plain or gzip (MNIST's train-images-idx3-ubyte.gz; the labels come from the labels file beside it, train-labels-idx1-ubyte.gz, when there is one), or a RecordIO image record file (.rec, as im2rec pack writes; the labels come from the record headers, and every image is resized to the size of the first).

Examples:
  tensorfeed show --grid digits.png data/mnist/t10k-images-idx3-ubyte.gz
  tensorfeed show -n 32 --grid photos.png photos_train.rec

In Go, grid.FromBatch (package github.com/tensorfeed/tensorfeed/image/grid) draws a batch of a pipeline the same way, to look at what an augmentation does.`,
	setup: func(fs *flag.FlagSet) runFunc {
		out := fs.String("grid", "", "the PNG `file` to write (required)")
		n := fs.Int("n", 64, "draw the first `N` images")
		cols := fs.Int("cols", 8, "`N` images per row")
		scale := fs.Int("scale", 0, "draw each pixel as `N`×N pixels (0: small images are enlarged to about 64 pixels)")
		format := fs.String("format", "", "the file's `format`: idx or imagerec; detected when empty")
		return func(ctx context.Context, pos []string, e *env) error {
			switch {
			case len(pos) != 1:
				return usagef("show takes one file, got %d arguments", len(pos))
			case *out == "":
				return usagef("show needs --grid OUT.png, the file to write")
			case *n < 1 || *cols < 1 || *scale < 0:
				return usagef("need -n >= 1, --cols >= 1 and --scale >= 0")
			}
			opts := []grid.Option{grid.Cols(*cols), grid.Scale(*scale)}
			img, what, err := showGrid(ctx, pos[0], fileFormat(*format), *n, opts)
			if err != nil {
				return err
			}
			if err := grid.WritePNG(*out, img); err != nil {
				return err
			}
			b := img.Bounds()
			fmt.Fprintf(e.stdout, "%s: %s; wrote %s, %dx%d pixels\n", pos[0], what, *out, b.Dx(), b.Dy())
			return nil
		}
	},
}

// showGrid draws the first n images of the file at path on a grid and
// says what it drew.
func showGrid(ctx context.Context, path string, format fileFormat, n int, opts []grid.Option) (image.Image, string, error) {
	if format == "" {
		head, err := readHead(ctx, path, nil)
		if err != nil {
			return nil, "", err
		}
		if format, err = detectFormat(path, head); err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
	}
	switch format {
	case formatIDX:
		return showIDX(path, n, opts)
	case formatImageRec:
		return showRec(ctx, path, n, opts)
	}
	return nil, "", usagef("%s: show draws IDX images or image records, not %s", path, format)
}

// showIDX draws the first n records of an IDX image file, with the labels
// of the labels file beside it when there is one.
func showIDX(path string, n int, opts []grid.Option) (image.Image, string, error) {
	x, closeFile, err := openIDX(path)
	if err != nil {
		return nil, "", err
	}
	defer closeFile()
	h := x.Header()
	n = min(n, h.Records())
	shape := append([]int{n}, h.Dims[1:]...)
	if len(shape) < 2 {
		return nil, "", fmt.Errorf("%s: IDX of dimensions %v holds no images", path, h.Dims)
	}
	per := h.RecordElems()
	data := tensor.Tensor{Name: "image", Shape: shape, DType: sample.Float32, F32: make([]float32, n*per)}
	for i := range n {
		if err := mnist.Read(x, data.F32[i*per:(i+1)*per]); err != nil {
			return nil, "", err
		}
	}
	if h.DType == sample.Uint8 {
		opts = append(opts, grid.Range(0, 255))
	}
	var labels []tensor.Tensor
	what := fmt.Sprintf("%d images %dx%d, no labels file beside it", n, shape[len(shape)-1], shape[1])
	if lp := labelsPath(path); lp != "" {
		l, err := readIDXLabels(lp, n)
		if err != nil {
			return nil, "", err
		}
		labels = []tensor.Tensor{l}
		what = fmt.Sprintf("%d images %dx%d, labels from %s", n, shape[len(shape)-1], shape[1], lp)
	}
	b := tensor.NewBatch([]tensor.Tensor{data}, labels, 0, nil)
	labelName := ""
	if labels != nil {
		labelName = "label"
	}
	img, err := grid.FromBatch(b, "image", labelName, opts...)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return img, what, nil
}

// openIDX opens an IDX file for reading record by record.
func openIDX(path string) (*mnist.IDXReader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	var opts []mnist.IDXOption
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		opts = append(opts, mnist.InputSize(st.Size()))
	}
	x, err := mnist.NewIDXReader(f, path, opts...)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return x, func() { f.Close() }, nil
}

// labelsPath returns the labels file beside an IDX images file, named as
// MNIST names them (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz),
// or "" when there is none.
func labelsPath(images string) string {
	dir, base := filepath.Split(images)
	if !strings.Contains(base, "images") {
		return ""
	}
	base = strings.Replace(base, "images", "labels", 1)
	for _, idx := range []string{"idx3", "idx4"} {
		base = strings.Replace(base, idx, "idx1", 1)
	}
	p := filepath.Join(dir, base)
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}

// readIDXLabels reads the first n labels of an IDX labels file.
func readIDXLabels(path string, n int) (tensor.Tensor, error) {
	x, closeFile, err := openIDX(path)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer closeFile()
	h := x.Header()
	if h.Records() < n {
		return tensor.Tensor{}, fmt.Errorf("%s: %d labels for %d images", path, h.Records(), n)
	}
	per := h.RecordElems()
	t := tensor.Tensor{Name: "label", Shape: append([]int{n}, h.Dims[1:]...), DType: sample.Float32, F32: make([]float32, n*per)}
	for i := range n {
		if err := mnist.Read(x, t.F32[i*per:(i+1)*per]); err != nil {
			return tensor.Tensor{}, err
		}
	}
	return t, nil
}

// maxTile bounds the longer side of a tile drawn from image records, so
// that a grid of photos stays a reasonable size.
const maxTile = 128

// showRec draws the first n images of an image record file, each resized to
// the size of the first (its longer side at most maxTile pixels), with the
// labels of their record headers.
func showRec(ctx context.Context, path string, n int, opts []grid.Option) (image.Image, string, error) {
	var pix []uint8
	var labels []float32
	var h, w, count, width int // width: the most labels of a record
	dec := decode.Default()
	var rows [][]float32
	err := eachRecord(ctx, path, nil, func(i int, _ int64, payload []byte) (bool, error) {
		hd, data, err := imagerec.ParseRecord(payload)
		if err != nil {
			return false, err
		}
		img, err := dec.Decode(data, decode.Options{Channels: 3})
		if err != nil {
			return false, err
		}
		if i == 0 {
			w, h = img.Width, img.Height
			if s := max(w, h); s > maxTile {
				w, h = max(1, w*maxTile/s), max(1, h*maxTile/s)
			}
		}
		if img.Width != w || img.Height != h {
			img = augment.ResizeImage(img, w, h, augment.AutoInterp)
		}
		pix = append(pix, img.Pix...)
		labels = hd.AppendLabels(labels[:0])
		rows = append(rows, append([]float32(nil), labels...))
		width = max(width, len(labels))
		count++
		return count < n, nil
	})
	if err != nil {
		return nil, "", err
	}
	if count == 0 {
		return nil, "", errors.New(path + ": no records")
	}
	// Records without a label, or with fewer, show NaN in the missing places.
	lt := tensor.Tensor{Name: "label", Shape: []int{count, max(width, 1)}, DType: sample.Float32, F32: make([]float32, count*max(width, 1))}
	for i, r := range rows {
		for j := range max(width, 1) {
			v := float32(math.NaN())
			if j < len(r) {
				v = r[j]
			}
			lt.F32[i*max(width, 1)+j] = v
		}
	}
	data := tensor.Tensor{Name: "image", Shape: []int{count, h, w, 3}, DType: sample.Uint8, U8: pix}
	img, err := grid.FromBatch(tensor.NewBatch([]tensor.Tensor{data}, []tensor.Tensor{lt}, 0, nil), "image", "label",
		append([]grid.Option{grid.WithLayout(grid.HWC)}, opts...)...)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return img, fmt.Sprintf("%d images drawn at %dx%d, labels from the record headers", count, w, h), nil
}
