package format

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// showFunc is the type of Format.Show.
type showFunc = func(ctx context.Context, path string, n int, shape []int, fit func(n, h, w int) error) (*tensor.Batch, string, error)

// shapeError is the error of a shape the caller gave, or should have
// given: it wraps ErrSpec, and reads msg.
func shapeError(format string, args ...any) error {
	return cause.Prefixed("", ErrSpec, fmt.Errorf(format, args...))
}

// showIDX is the Show of the idx format: the first n records of a local
// IDX file (uint8 or float32 values, as the file holds them), with the
// labels of the labels file beside it, named as MNIST names them
// (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz), when there is
// one. An IDX file says its shape: shape must be nil.
func showIDX(_ context.Context, path string, n int, shape []int, fit func(n, h, w int) error) (*tensor.Batch, string, error) {
	if shape != nil {
		return nil, "", shapeError("--shape is for image records of raw pixels; an IDX file says its shape")
	}
	x, closeFile, err := openIDX(path)
	if err != nil {
		return nil, "", err
	}
	defer closeFile()
	h := x.Header()
	n = min(n, h.Records())
	dims := append([]int{n}, h.Dims[1:]...)
	if len(dims) < 2 {
		return nil, "", fmt.Errorf("%s: IDX of dimensions %v holds no images", path, h.Dims)
	}
	// The pixels of a record: its rows by the rest (columns, channels).
	if err := fit(n, dims[1], h.RecordElems()/max(dims[1], 1)); err != nil {
		return nil, "", err
	}
	data, err := readIDX(x, "image", dims)
	if err != nil {
		return nil, "", err
	}
	var labels []tensor.Tensor
	what := fmt.Sprintf("%d images %dx%d, no labels file beside it", n, dims[len(dims)-1], dims[1])
	if lp := labelsPath(path); lp != "" {
		l, closeLabels, err := openIDX(lp)
		if err != nil {
			return nil, "", err
		}
		defer closeLabels()
		if l.Header().Records() < n {
			return nil, "", fmt.Errorf("%s: %d labels for %d images", lp, l.Header().Records(), n)
		}
		t, err := readIDX(l, "label", append([]int{n}, l.Header().Dims[1:]...))
		if err != nil {
			return nil, "", err
		}
		labels = []tensor.Tensor{t}
		what = fmt.Sprintf("%d images %dx%d, labels from %s", n, dims[len(dims)-1], dims[1], lp)
	}
	return &tensor.Batch{Data: []tensor.Tensor{data}, Label: labels}, what, nil
}

// readIDX reads the records of a tensor of shape dims from x: its bytes
// for uint8 values, else float32.
func readIDX(x *idx.Reader, name string, dims []int) (tensor.Tensor, error) {
	n, per := dims[0], x.Header().RecordElems()
	t := tensor.Tensor{Name: name, Shape: dims, DType: sample.Float32}
	if x.Header().DType == sample.Uint8 {
		t.DType, t.U8 = sample.Uint8, make([]uint8, n*per)
	} else {
		t.F32 = make([]float32, n*per)
	}
	for i := range n {
		var err error
		if t.U8 != nil {
			err = x.ReadRaw(t.U8[i*per : (i+1)*per])
		} else {
			err = idx.Read(x, t.F32[i*per:(i+1)*per])
		}
		if err != nil {
			return tensor.Tensor{}, err
		}
	}
	return t, nil
}

// openIDX opens a local IDX file for reading record by record.
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

// labelsPath returns the labels file beside an IDX images file, or ""
// when there is none.
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

// maxTile bounds the longer side of a tile drawn from image records, so
// that a grid of photos stays a reasonable size.
const maxTile = 128

// showRecordIO is the Show of a recordio format: the first n image
// records of the file, as uint8 HWC pixels, each resized to the size of
// the first (its longer side at most 128 pixels), with the labels of
// their headers (NaN where a record has fewer than the most). As Check
// does, it decides from the first record what the records hold: a JPEG or
// PNG after the header is decoded; other bytes are raw HWC pixels (what
// convert writes from MNIST) of shape ([H, W, C], C 1 or 3) or, when
// shape is nil, a square grey image when their length is a square number
// (784: 28x28) or a square RGB image when it is 3 times one (3072:
// 32x32x3).
func showRecordIO(f Format) showFunc {
	return func(ctx context.Context, path string, n int, shape []int, fit func(n, h, w int) error) (*tensor.Batch, string, error) {
		var pix []uint8
		var rows [][]float32
		var h, w, c, width int // width: the most labels of a record
		var hd imagerec.Header
		raw := false
		for rec, err := range f.Open(path, nil).All(ctx) {
			if err != nil {
				return nil, "", err
			}
			data, err := imagerec.ParseRecordInto(&hd, rec.Data)
			if err == nil && rec.Index == 0 {
				raw = decode.Sniff(data) == decode.FormatUnknown
				switch {
				case raw && shape == nil:
					if shape = squareShape(len(data)); shape == nil {
						return nil, "", shapeError("the image record holds %d bytes after its header, neither a JPEG, a PNG nor raw pixels of a square image (a square number of bytes, or 3 times one): give --shape HxW or HxWxC", len(data))
					}
				case !raw && shape != nil:
					return nil, "", shapeError("--shape %s is for raw pixels, and the image record holds a %s image", shapeString(shape), decode.Sniff(data))
				}
			}
			var img sample.Image
			switch {
			case err != nil:
			case raw:
				if want := shape[0] * shape[1] * shape[2]; len(data) != want {
					err = fmt.Errorf("%w: %d bytes of pixels after the image record header, not the %d of %s (the first record's shape, or --shape)", tensorfeed.ErrBadData, len(data), want, shapeString(shape))
				}
				img = sample.Image{Height: shape[0], Width: shape[1], Channels: shape[2], Pix: data}
			default:
				img, err = decode.Default().Decode(data, decode.Options{Channels: 3})
			}
			if err != nil {
				return nil, "", &tensorfeed.Error{Path: path, Offset: rec.Offset, Record: rec.Index, Err: err}
			}
			if rec.Index == 0 {
				w, h, c = img.Width, img.Height, img.Channels
				if s := max(w, h); s > maxTile {
					w, h = max(1, w*maxTile/s), max(1, h*maxTile/s)
				}
			}
			if img.Width != w || img.Height != h {
				img = augment.ResizeImage(img, w, h, augment.AutoInterp)
			}
			pix = append(pix, img.Pix...) // a copy: the payload's buffer may be reused
			rows = append(rows, hd.AppendLabels(nil))
			width = max(width, len(rows[len(rows)-1]))
			if len(rows) == n {
				break
			}
		}
		count := len(rows)
		if count == 0 {
			return nil, "", errors.New(path + ": no records")
		}
		if err := fit(count, h, w); err != nil {
			return nil, "", err
		}
		width = max(width, 1)
		lt := tensor.Tensor{Name: "label", Shape: []int{count, width}, DType: sample.Float32, F32: make([]float32, count*width)}
		for i, r := range rows {
			for j := range width {
				v := float32(math.NaN())
				if j < len(r) {
					v = r[j]
				}
				lt.F32[i*width+j] = v
			}
		}
		data := tensor.Tensor{Name: "image", Shape: []int{count, h, w, c}, DType: sample.Uint8, U8: pix}
		what := fmt.Sprintf("%d images drawn at %dx%d, labels from the record headers", count, w, h)
		if raw {
			what = fmt.Sprintf("%d images of raw pixels %s drawn at %dx%d, labels from the record headers", count, shapeString(shape), w, h)
		}
		return &tensor.Batch{Data: []tensor.Tensor{data}, Label: []tensor.Tensor{lt}}, what, nil
	}
}

// squareShape returns the shape of n bytes of raw pixels: a square
// number is a grey square image (MNIST's 784: 28x28), 3 times one an RGB
// square image (CIFAR's 3072: 32x32x3); nil otherwise.
func squareShape(n int) []int {
	for _, c := range []int{1, 3} {
		if n%c == 0 {
			s := int(math.Sqrt(float64(n / c)))
			for s*s > n/c {
				s--
			}
			for (s+1)*(s+1) <= n/c {
				s++
			}
			if s > 0 && s*s == n/c {
				return []int{s, s, c}
			}
		}
	}
	return nil
}

// shapeString writes an image shape as --shape takes it: HxW for grey,
// HxWxC.
func shapeString(s []int) string {
	if s[2] == 1 {
		return fmt.Sprintf("%dx%d", s[0], s[1])
	}
	return fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2])
}
