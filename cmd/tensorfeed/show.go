package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/grid"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

var showCommand = command{
	name:    "show",
	args:    "[-n 64] [--cols 8] [--shape HxW[xC]] --grid OUT.png PATH",
	summary: "draw the first images of a dataset into a PNG grid, each with its label",
	doc: `Show draws the first N images of an image dataset into a PNG grid, each image's label written under it, so that you can see what a file holds before training on it.

PATH is an IDX image file, plain or gzip (MNIST's train-images-idx3-ubyte.gz; the labels come from the labels file beside it, train-labels-idx1-ubyte.gz, when there is one), or a RecordIO image record file (.rec; the labels come from the record headers, and every image is resized to the size of the first). As check does, show decides from the first record what the records hold: JPEG or PNG images (as im2rec pack and convert --from images write) are decoded; other bytes are raw pixels, HWC (as convert --from mnist writes MNIST's 28x28 grey digits), of the size --shape gives or, without it, a square grey image when their length is a square number (784: 28x28) or a square RGB image when it is 3 times one (3072: 32x32x3).

The grid's folder must exist (show makes none), and a grid holds at most 1024 images and 64 Mi pixels.

Examples:
  tensorfeed show --grid digits.png data/mnist/t10k-images-idx3-ubyte.gz
  tensorfeed show -n 32 --grid photos.png photos_train.rec
  tensorfeed show --shape 28x28 --grid digits.png mnist-00000.rec`,
	setup: func(fs *flag.FlagSet) runFunc {
		out := fs.String("grid", "", "the PNG `file` to write (required); its folder must exist")
		n := fs.Int("n", 64, fmt.Sprintf("draw the first `N` images, at most %d", maxShowImages))
		cols := fs.Int("cols", 8, "`N` images per row")
		scale := fs.Int("scale", 0, fmt.Sprintf("draw each pixel as `N`×N pixels, at most %d (0: small images are enlarged to about 64 pixels)", maxShowScale))
		format := fs.String("format", "", "the file's `format`: idx or recordio (image records); detected when empty")
		shapeFlag := fs.String("shape", "", "image records of raw pixels: the `HxW[xC]` of each (C 1 or 3); without it a payload of a square number of bytes is grey, of 3 times one RGB")
		return func(ctx context.Context, pos []string, e *env) error {
			switch {
			case len(pos) != 1:
				return usagef("show takes one file, got %d arguments", len(pos))
			case *out == "":
				return usagef("show needs --grid OUT.png, the file to write")
			case *n < 1 || *cols < 1 || *scale < 0:
				return usagef("need -n >= 1, --cols >= 1 and --scale >= 0")
			case *n > maxShowImages:
				return usagef("-n %d: show draws at most %d images, a grid a person can look at", *n, maxShowImages)
			case *scale > maxShowScale:
				return usagef("--scale %d: at most %d", *scale, maxShowScale)
			}
			var shape rawShape
			if *shapeFlag != "" {
				var err error
				if shape, err = parseRawShape(*shapeFlag); err != nil {
					return err
				}
			}
			// The grid's folder is checked before the data is read, so that
			// a mistyped path fails at once, and it is not created: a
			// folder made by a typo would go unnoticed.
			if err := checkOutDir(*out); err != nil {
				return err
			}
			f, err := parseFormat(*format, formats...)
			if err != nil {
				return err
			}
			opts := []grid.Option{grid.Cols(*cols), grid.Scale(*scale)}
			img, what, err := showGrid(ctx, pos[0], f, *n, *scale, shape, opts)
			if err != nil {
				return err
			}
			if err := writePNG(*out, img); err != nil {
				return err
			}
			b := img.Bounds()
			fmt.Fprintf(e.stdout, "%s: %s; wrote %s, %dx%d pixels\n", pos[0], what, *out, b.Dx(), b.Dy())
			return nil
		}
	},
}

const (
	// maxShowImages bounds -n: the grid of 1024 MNIST digits at the
	// default scale is 457x9217 pixels, and more tiles are more than a
	// person looks at.
	maxShowImages = 1024
	// maxShowScale bounds --scale.
	maxShowScale = 16
	// maxGridPixels bounds the tiles' pixels of a grid, 256 MiB as RGBA,
	// since -n and --scale within their bounds may still ask for more
	// (1024 tiles of maxTile pixels at scale 16 are 4 Gi pixels): 1024
	// MNIST digits at the default scale are 3.2 Mi pixels.
	maxGridPixels = 64 << 20
)

// checkGridSize returns a usage error when n tiles of h×w pixels drawn at
// scale (0: grid's automatic scale, which enlarges small images to about
// 64 pixels) pass maxGridPixels.
func checkGridSize(path string, n, h, w, scale int) error {
	if scale == 0 {
		scale = max(1, 64/max(h, w, 1))
	}
	// h and w are below 2^31 (an IDX dimension, or at most maxTile), and
	// scale and n are bounded, so that the product is checked one factor
	// at a time without overflowing.
	px := int64(h) * int64(w)
	for _, f := range []int64{int64(scale), int64(scale), int64(n)} {
		if px > maxGridPixels {
			break
		}
		px *= f
	}
	if px > maxGridPixels {
		return usagef("%s: %d images of %dx%d pixels drawn at scale %d are more than the %d pixels a grid holds: give a smaller -n or --scale", path, n, w, h, scale, maxGridPixels)
	}
	return nil
}

// checkOutDir returns an error naming the folder of the file out when that
// folder does not exist or is not a folder, or when out is a folder.
func checkOutDir(out string) error {
	dir := filepath.Dir(out)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--grid %s: the folder %s does not exist", out, dir)
	case err != nil:
		return fmt.Errorf("--grid %s: %w", out, err)
	case !st.IsDir():
		return fmt.Errorf("--grid %s: %s is not a folder", out, dir)
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("--grid %s: a folder, not a file", out)
	}
	return nil
}

// writePNG writes img to path through a temporary file beside it, so that
// a failed write leaves no partial PNG; unlike grid.WritePNG it creates no
// folder.
func writePNG(path string, img image.Image) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = png.Encode(f, img)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644) // what os.Create would have given, not CreateTemp's 0600
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// rawShape is the size of an image record's raw pixels (HWC bytes); zero
// when not given.
type rawShape struct{ h, w, c int }

// parseRawShape parses --shape: HxW (grey) or HxWxC, C 1 or 3.
func parseRawShape(s string) (rawShape, error) {
	parts := strings.Split(strings.ToLower(s), "x")
	if len(parts) == 2 {
		parts = append(parts, "1")
	}
	var v [3]int
	for i, p := range parts {
		if len(parts) != 3 {
			break
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1<<16 {
			return rawShape{}, usagef("--shape %q: want HxW or HxWxC, each a number from 1 to 65536", s)
		}
		v[i] = n
	}
	if len(parts) != 3 {
		return rawShape{}, usagef("--shape %q: want HxW or HxWxC (28x28, 32x32x3)", s)
	}
	if v[2] != 1 && v[2] != 3 {
		return rawShape{}, usagef("--shape %q: C is 1 (grey) or 3 (RGB), not %d", s, v[2])
	}
	return rawShape{v[0], v[1], v[2]}, nil
}

// inferRawShape guesses the shape of n bytes of raw pixels: a square
// number is a grey square image (MNIST's 784: 28x28), 3 times one an RGB
// square image (CIFAR's 3072: 32x32x3). It returns false otherwise.
func inferRawShape(n int) (rawShape, bool) {
	if s := isqrt(n); s > 0 && s*s == n {
		return rawShape{s, s, 1}, true
	}
	if n%3 == 0 {
		if s := isqrt(n / 3); s > 0 && s*s == n/3 {
			return rawShape{s, s, 3}, true
		}
	}
	return rawShape{}, false
}

// isqrt returns the integer square root of n >= 0.
func isqrt(n int) int {
	s := int(math.Sqrt(float64(n)))
	for s*s > n {
		s--
	}
	for (s+1)*(s+1) <= n {
		s++
	}
	return s
}

func (r rawShape) String() string {
	if r.c == 1 {
		return fmt.Sprintf("%dx%d", r.h, r.w)
	}
	return fmt.Sprintf("%dx%dx%d", r.h, r.w, r.c)
}

// showGrid draws the first n images of the file at path on a grid and
// says what it drew.
func showGrid(ctx context.Context, path string, format fileFormat, n, scale int, shape rawShape, opts []grid.Option) (image.Image, string, error) {
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
		if shape != (rawShape{}) {
			return nil, "", usagef("%s: --shape is for image records of raw pixels; an IDX file says its shape", path)
		}
		return showIDX(path, n, scale, opts)
	case formatRecordIO:
		return showRec(ctx, path, n, scale, shape, opts)
	}
	return nil, "", usagef("%s: show draws IDX images or image records, not %s", path, format)
}

// showIDX draws the first n records of an IDX image file, with the labels
// of the labels file beside it when there is one.
func showIDX(path string, n, scale int, opts []grid.Option) (image.Image, string, error) {
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
	// The pixels of a record: its rows by the rest (columns, channels).
	if err := checkGridSize(path, n, shape[1], h.RecordElems()/max(shape[1], 1), scale); err != nil {
		return nil, "", err
	}
	per := h.RecordElems()
	data := tensor.Tensor{Name: "image", Shape: shape, DType: sample.Float32, F32: make([]float32, n*per)}
	for i := range n {
		if err := idx.Read(x, data.F32[i*per:(i+1)*per]); err != nil {
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
func openIDX(path string) (*idx.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	var opts []idx.Option
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		opts = append(opts, idx.InputSize(st.Size()))
	}
	x, err := idx.NewReader(f, path, opts...)
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
	for _, dims := range []string{"idx3", "idx4"} {
		base = strings.Replace(base, dims, "idx1", 1)
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
		if err := idx.Read(x, t.F32[i*per:(i+1)*per]); err != nil {
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
// labels of their record headers. As check does, it decides from the first
// record what the records hold: a JPEG or PNG after the header is decoded;
// other bytes are raw HWC pixels (what convert writes from MNIST) of the
// shape given, or of the shape inferRawShape finds in the first payload.
func showRec(ctx context.Context, path string, n, scale int, shape rawShape, opts []grid.Option) (image.Image, string, error) {
	var pix []uint8
	var labels []float32
	var h, w, c, count, width int // width: the most labels of a record
	dec := decode.Default()
	var rows [][]float32
	raw := false
	err := eachRecord(ctx, path, nil, func(i int, _ int64, payload []byte) (bool, error) {
		hd, data, err := imagerec.ParseRecord(payload)
		if err != nil {
			return false, err
		}
		if i == 0 {
			raw = decode.Sniff(data) == decode.FormatUnknown
			switch {
			case raw && shape == (rawShape{}):
				var ok bool
				if shape, ok = inferRawShape(len(data)); !ok {
					return false, usagef("the image record holds %d bytes after its header, neither a JPEG, a PNG nor raw pixels of a square image (a square number of bytes, or 3 times one): give --shape HxW or HxWxC", len(data))
				}
			case !raw && shape != (rawShape{}):
				return false, usagef("--shape %s is for raw pixels, and the image record holds a %s image", shape, decode.Sniff(data))
			}
		}
		var img sample.Image
		if raw {
			if want := shape.h * shape.w * shape.c; len(data) != want {
				return false, fmt.Errorf("%w: %d bytes of pixels after the image record header, not the %d of %s (the first record's shape, or --shape)", tensorfeed.ErrBadData, len(data), want, shape)
			}
			img = sample.Image{Height: shape.h, Width: shape.w, Channels: shape.c, Pix: data}
		} else if img, err = dec.Decode(data, decode.Options{Channels: 3}); err != nil {
			return false, err
		}
		if i == 0 {
			w, h, c = img.Width, img.Height, img.Channels
			if s := max(w, h); s > maxTile {
				w, h = max(1, w*maxTile/s), max(1, h*maxTile/s)
			}
		}
		if img.Width != w || img.Height != h {
			img = augment.ResizeImage(img, w, h, augment.AutoInterp)
		}
		pix = append(pix, img.Pix...) // a copy: the payload's buffer is reused
		labels = hd.AppendLabels(labels[:0])
		rows = append(rows, append([]float32(nil), labels...))
		width = max(width, len(labels))
		count++
		return count < n, nil
	})
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return nil, "", usagef("%s: %s", path, ue.msg)
		}
		return nil, "", err
	}
	if count == 0 {
		return nil, "", errors.New(path + ": no records")
	}
	if err := checkGridSize(path, count, h, w, scale); err != nil {
		return nil, "", err
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
	data := tensor.Tensor{Name: "image", Shape: []int{count, h, w, c}, DType: sample.Uint8, U8: pix}
	img, err := grid.FromBatch(tensor.NewBatch([]tensor.Tensor{data}, []tensor.Tensor{lt}, 0, nil), "image", "label",
		append([]grid.Option{grid.WithLayout(grid.HWC)}, opts...)...)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	what := fmt.Sprintf("%d images drawn at %dx%d, labels from the record headers", count, w, h)
	if raw {
		what = fmt.Sprintf("%d images of raw pixels %s drawn at %dx%d, labels from the record headers", count, shape, w, h)
	}
	return img, what, nil
}
