// Command photos writes a folder of JPEG photographs in im2rec's layout,
// one subfolder per class, made from the MNIST test digits in data/mnist:
// the input the README's command-line block packs, checks and converts,
// for a user who has no photographs at hand.
//
//	go run ./examples/photos out/photos          # 200 digits: out/photos/0/..., out/photos/9/...
//	go run ./examples/photos -n 1000 out/photos
//
// Each digit is enlarged 4 times (112x112 pixels) and tinted by its class,
// so that the images are colour photographs of a useful size; the folder
// must not exist yet or be empty. It reads data/mnist from any folder of
// the repository.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

// scale is how many times each digit is enlarged.
const scale = 4

func main() {
	n := flag.Int("n", 200, "how many digits to write (at most 10,000)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: photos [-n 200] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *n < 1 || *n > 10000 {
		flag.Usage()
		os.Exit(2)
	}
	ctx := context.Background()
	written, err := write(ctx, cli.RepoPath("data/mnist"), flag.Arg(0), *n)
	if err != nil {
		cli.Exit(ctx, fmt.Errorf("photos: %w", err))
	}
	fmt.Printf("%s: %d photographs of digits in 10 class folders\n", flag.Arg(0), written)
}

// write writes the first n test digits of the MNIST files in dataDir as
// JPEG files under dir/LABEL/, and returns how many it wrote.
func write(ctx context.Context, dataDir, dir string, n int) (int, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return 0, fmt.Errorf("%s is not empty", dir)
	}
	written := 0
	var buf bytes.Buffer
	for s, err := range pipeline.From[mnist.Sample](mnist.Test(dataDir)).Take(n).All(ctx) {
		if err != nil {
			return written, err
		}
		buf.Reset()
		if err := jpeg.Encode(&buf, photo(s), &jpeg.Options{Quality: 90}); err != nil {
			return written, err
		}
		path := filepath.Join(dir, fmt.Sprint(s.Label), fmt.Sprintf("%05d.jpg", s.Index))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return written, err
		}
		written++
	}
	return written, nil
}

// photo is the digit enlarged scale times, its ink in a colour of its class.
func photo(s mnist.Sample) image.Image {
	ink := color.RGBA{R: uint8(60 + 19*s.Label), G: uint8(230 - 17*s.Label), B: uint8(120 + 13*s.Label%7), A: 255}
	m := image.NewRGBA(image.Rect(0, 0, mnist.Cols*scale, mnist.Rows*scale))
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			v := uint32(s.Image[(y/scale)*mnist.Cols+x/scale])
			m.SetRGBA(x, y, color.RGBA{
				R: uint8((uint32(ink.R)*v + 255*(255-v)) / 255),
				G: uint8((uint32(ink.G)*v + 255*(255-v)) / 255),
				B: uint8((uint32(ink.B)*v + 255*(255-v)) / 255),
				A: 255,
			})
		}
	}
	return m
}
