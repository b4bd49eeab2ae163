package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/internal/grid"
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
			var shape []int
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
			f, err := parseFormat(*format)
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

// parseRawShape parses --shape: HxW (grey) or HxWxC, C 1 or 3.
func parseRawShape(s string) ([]int, error) {
	v, err := parseDims("--shape", strings.ToLower(s), "x", "HxW or HxWxC, each a number from 1 to 65536", 1<<16)
	if len(v) == 2 {
		v = append(v, 1)
	}
	switch {
	case err != nil:
		return nil, err
	case len(v) != 3:
		return nil, usagef("--shape %q: want HxW or HxWxC (28x28, 32x32x3)", s)
	case v[2] != 1 && v[2] != 3:
		return nil, usagef("--shape %q: C is 1 (grey) or 3 (RGB), not %d", s, v[2])
	}
	return v, nil
}

// showGrid draws the first n images of the file at path on a grid, with
// its format's Show, and says what it drew.
func showGrid(ctx context.Context, path string, name string, n, scale int, shape []int, opts []grid.Option) (image.Image, string, error) {
	if name == "" {
		var err error
		if name, err = format.Default().Detect(ctx, path); err != nil {
			return nil, "", err
		}
	}
	f, _ := format.Default().Lookup(name)
	if f.Show == nil {
		return nil, "", usagef("%s: show draws IDX images or image records, not %s", path, name)
	}
	fit := func(n, h, w int) error { return checkGridSize(path, n, h, w, scale) }
	b, what, err := f.Show(ctx, path, n, shape, fit)
	if errors.Is(err, format.ErrSpec) {
		return nil, "", usagef("%s: %v", path, err)
	}
	if err != nil {
		return nil, "", err
	}
	label := ""
	if _, ok := b.Get("label"); ok {
		label = "label"
	}
	img, err := grid.FromBatch(b, "image", label, opts...)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return img, what, nil
}
