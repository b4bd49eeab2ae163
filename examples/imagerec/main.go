// Command imagerec runs MXNet's ImageRecordIter pipeline over an image
// RecordIO file: records are read (in a new random order every epoch when
// the file has an .idx), decoded and augmented in parallel, normalised into
// float32 CHW tensors and batched. It prints the throughput of every epoch
// and writes a contact sheet of augmented crops, so a person can see what a
// model would see.
//
// By default it reads the 1000 MNIST test digits packed as 3-channel JPEGs
// in dataset/imagerec/testdata/mnist_t10k_1000_jpg.rec and augments them
// with a random rotation, scale, padding and crop:
//
//	go run ./examples/imagerec
//
// With -feed-only it runs the pipeline alone (no contact sheet). The stop
// and resume flags are those of examples/mnist: -stop-after N writes the
// checkpoint to -checkpoint after the run's N-th batch and ends the run,
// -resume FILE continues from it exactly (with any -threads and
// -prefetch), and -dump FILE writes a line per batch (epoch, step, SHA-256
// of the image tensor and of the label values as int32). The iterator
// resumes by replaying the epoch up to the checkpoint when it cannot start
// part way. Ctrl-C (SIGINT) or SIGTERM stops the run at the next batch,
// writes the checkpoint of that position to -checkpoint, prints where on
// one line and exits with status 130 or 143.
//
// Any .rec works; for photographs give the output shape and a resize:
//
//	go run ./examples/imagerec -rec photos.rec -shape 3,224,224 -resize 256 -mirror
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func main() {
	cfg := defaultConfig()
	shape := fmt.Sprintf("%d,%d,%d", cfg.Shape[0], cfg.Shape[1], cfg.Shape[2])
	flag.StringVar(&cfg.RecPath, "rec", cfg.RecPath, "image RecordIO file")
	flag.StringVar(&cfg.IdxPath, "idx", "", "its .idx file (default: the .rec's name with .idx, when it exists)")
	flag.StringVar(&shape, "shape", shape, "output shape C,H,W")
	flag.IntVar(&cfg.Resize, "resize", cfg.Resize, "resize the shorter side to this first (0: keep)")
	flag.IntVar(&cfg.Rotate, "rotate", cfg.Rotate, "maximum random rotation in degrees")
	flag.Float64Var(&cfg.MinScale, "min-scale", cfg.MinScale, "smallest random scale")
	flag.Float64Var(&cfg.MaxScale, "max-scale", cfg.MaxScale, "largest random scale")
	flag.IntVar(&cfg.Pad, "pad", cfg.Pad, "pixels padded on every side before the random crop")
	flag.BoolVar(&cfg.Mirror, "mirror", cfg.Mirror, "flip half of the images left to right")
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "passes over the file")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "batch size")
	flag.IntVar(&cfg.Threads, "threads", cfg.Threads, "decoding and augmenting goroutines (0: min(4, GOMAXPROCS))")
	flag.IntVar(&cfg.Prefetch, "prefetch", cfg.Prefetch, "batches decoded ahead of the loop (0: none)")
	cfg.Run.Register(flag.CommandLine, "int32 (the label values, which the tensor holds as float32)")
	flag.StringVar(&cfg.OutDir, "out", cfg.OutDir, "directory for the contact sheet")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle and the augmentation")
	var logging cli.Logging
	logging.Register(flag.CommandLine)
	flag.Parse()
	var shapeErr error
	cfg.Shape, shapeErr = parseShape(shape)
	cli.CheckFlags(
		shapeErr,
		cli.AtLeast("resize", cfg.Resize, 0),
		cli.AtLeast("rotate", cfg.Rotate, 0),
		cli.Positive("min-scale", cfg.MinScale),
		cli.Positive("max-scale", cfg.MaxScale),
		scalesOrdered(cfg.MinScale, cfg.MaxScale),
		cli.AtLeast("pad", cfg.Pad, 0),
		cli.AtLeast("epochs", cfg.Epochs, 1),
		cli.AtLeast("batch", cfg.BatchSize, 1),
		cli.AtLeast("threads", cfg.Threads, 0),
		cli.AtLeast("prefetch", cfg.Prefetch, 0),
		cfg.Run.Check(),
	)

	log := logging.Logger()
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	cfg.Log = log
	cfg.Progress = os.Stderr

	res := cli.Main(func(ctx context.Context) (*result, error) { return run(ctx, cfg, os.Stdout) })
	if res.Stopped {
		return
	}
	if res.Sheet == "" {
		fmt.Printf("%d images per epoch, %.0f images/s\n", res.Images, res.Rate)
		return
	}
	fmt.Printf("%d images per epoch, %.0f images/s; contact sheet: %s\n", res.Images, res.Rate, res.Sheet)
}

// parseShape reads the -shape flag: three dimensions C,H,W of at least 1.
func parseShape(s string) ([3]int, error) {
	var out [3]int
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return out, fmt.Errorf("invalid value %q for -shape: want C,H,W", s)
	}
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return out, fmt.Errorf("invalid value %q for -shape: want three whole numbers of at least 1, C,H,W", s)
		}
		out[i] = v
	}
	return out, nil
}

// scalesOrdered checks that -min-scale is at most -max-scale.
func scalesOrdered(lo, hi float64) error {
	if lo > hi {
		return fmt.Errorf("invalid values for -min-scale %v and -max-scale %v: the smallest scale is above the largest", lo, hi)
	}
	return nil
}
