package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/examples/internal/dump"
	imgrid "github.com/tensorfeed/tensorfeed/internal/grid"
	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

type config struct {
	RecPath, IdxPath string
	Shape            [3]int
	Resize           int
	Rotate           int
	MinScale         float64
	MaxScale         float64
	Pad              int
	Mirror           bool
	Epochs           int
	BatchSize        int
	Threads          int
	Prefetch         int // batches decoded ahead of the loop
	OutDir           string
	SheetSize        int // images on the contact sheet
	Seed             uint64
	Run              dump.Flags

	Log      *zap.Logger
	Progress io.Writer
}

func defaultConfig() config {
	return config{
		RecPath:   cli.RepoPath("dataset/imagerec/testdata/mnist_t10k_1000_jpg.rec"),
		Shape:     [3]int{3, 28, 28},
		Rotate:    15,
		MinScale:  0.9,
		MaxScale:  1.1,
		Pad:       4,
		Epochs:    3,
		BatchSize: 64,
		OutDir:    "out/imagerec",
		SheetSize: 64,
		Prefetch:  4,
		Seed:      1,
	}
}

type result struct {
	Images     int     // per epoch
	Rate       float64 // images per second over all epochs
	EpochRates []float64
	Sheet      string // the contact sheet's path; "" when none was drawn (-feed-only, -stop-after)
	Stopped    bool   // -stop-after ended the run
	Batches    int    // batches the loop received
	Labels     []float32
	Stats      pipeline.Stats
}

// threads returns the number of goroutines the Iter runs for n (its
// default for 0).
func threads(n int) int {
	if n == 0 {
		return min(4, runtime.GOMAXPROCS(0))
	}
	return n
}

// idxPath returns the .idx file to read: the flag's, else the one beside
// the .rec when there is one.
func idxPath(cfg config) string {
	if cfg.IdxPath != "" {
		return cfg.IdxPath
	}
	guess := strings.TrimSuffix(cfg.RecPath, filepath.Ext(cfg.RecPath)) + ".idx"
	if _, err := os.Stat(guess); err == nil {
		return guess
	}
	return ""
}

// iterParams maps the example's flags to MXNet's ImageRecordIter
// parameters.
func iterParams(cfg config, idx string) mxnet.Params {
	return mxnet.Params{
		"path_imgrec": cfg.RecPath, "path_imgidx": idx,
		"data_shape": cfg.Shape,
		"shuffle":    true, "seed": cfg.Seed,
		"batch_size": cfg.BatchSize, "round_batch": batch.Pad,
		"resize":           cfg.Resize,
		"max_rotate_angle": cfg.Rotate, "min_random_scale": cfg.MinScale, "max_random_scale": cfg.MaxScale,
		"pad": cfg.Pad, "fill_value": 0,
		"rand_crop": true, "rand_mirror": cfg.Mirror,
		// Pixels scaled to [0, 1], with a little random contrast and
		// illumination.
		"scale": 1.0 / 255, "max_random_contrast": 0.2, "max_random_illumination": 20,
		"preprocess_threads": cfg.Threads, "prefetch_buffer": cfg.Prefetch,
	}
}

func run(ctx context.Context, cfg config, out io.Writer) (res *result, err error) {
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	// The outputs are checked first: a bad path fails now, not after the
	// run it would have ended.
	sheetDir := cfg.OutDir
	if cfg.Run.FeedOnly {
		sheetDir = "" // no contact sheet
	}
	if err := errors.Join(cli.WritableDir("out", sheetDir), cfg.Run.CheckOutputs()); err != nil {
		return nil, err
	}
	if _, err := os.Stat(cfg.RecPath); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w (set -rec to an image RecordIO file)", err)
	}
	ctx = tensorfeed.WithLogger(ctx, cfg.Log)
	idx := idxPath(cfg)
	// The iterator's state kind holds every parameter that decides its
	// stream, so a checkpoint of other flags is refused naming the
	// parameter.
	p, err := mxnet.ImageRecordIter(ctx, iterParams(cfg, idx))
	if err != nil {
		return nil, err
	}
	cfg.Log.Info("ImageRecordIter", zap.String("rec", cfg.RecPath), zap.String("idx", idx),
		zap.String("data", fmt.Sprintf("data float32%v", append([]int{cfg.BatchSize}, cfg.Shape[:]...))),
		zap.String("label", fmt.Sprintf("softmax_label float32[%d]", cfg.BatchSize)),
		zap.Int("threads", threads(cfg.Threads)))
	// Stop and resume with the public API: the feed keeps its position,
	// Checkpoint saves it, EpochsFrom continues from it.
	epochs := p.Epochs(ctx, cfg.Epochs)
	var from *pipeline.Checkpoint
	if cfg.Run.Resume != "" {
		if from, err = pipeline.ReadCheckpoint(cfg.Run.Resume); err != nil {
			return nil, fmt.Errorf("-resume: %w", err)
		}
		if epochs, err = p.EpochsFrom(ctx, from, cfg.Epochs); err != nil {
			return nil, fmt.Errorf("-resume %s: %w", cfg.Run.Resume, err)
		}
		fmt.Fprintf(out, "resumed from %s at epoch %d step %d\n", cfg.Run.Resume, from.Epoch, from.Step)
	}
	d, err := dump.Open(cfg.Run.Dump, from != nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := d.Close(); err == nil && cerr != nil {
			res, err = nil, cerr
		}
	}()
	// save writes the feed's checkpoint after the dump it follows, even
	// when a signal cancelled the run's context.
	save := func() (*pipeline.Checkpoint, error) {
		ck, err := p.Checkpoint(context.WithoutCancel(ctx))
		if err == nil {
			err = errors.Join(d.Flush(), ck.WriteFile(cfg.Run.Checkpoint))
		}
		return ck, err
	}
	stopped := func() error { // a signal: checkpoint where the loop is, say so
		e, st := p.Position()
		se := &dump.StopError{Epoch: e, Step: st, Cause: context.Cause(ctx)}
		if cfg.Run.Checkpoint != "" {
			if _, err := save(); err != nil {
				return err
			}
			se.Checkpoint = cfg.Run.Checkpoint
		}
		return se
	}

	res = &result{}
	c, h, w := cfg.Shape[0], cfg.Shape[1], cfg.Shape[2]
	per := c * h * w
	scale := max(1, 112/max(h, w)) // small images are drawn larger
	sheet := &imgrid.Grid{H: h, W: w, Channels: c, Cols: 8, Scale: scale}
	if c == 4 {
		sheet.Channels = 3 // the alpha plane is not drawn
	}
	draw := !cfg.Run.FeedOnly
	var total time.Duration
	all := 0
	for epoch, pass := range epochs {
		bar := progress.New(cfg.Progress, fmt.Sprintf("epoch %d/%d", epoch+1, cfg.Epochs), 0, "images", progress.Quiet())
		images := 0
		for ts, err := range pass {
			if err != nil {
				bar.Finish()
				if ctx.Err() != nil {
					return nil, stopped()
				}
				return nil, err
			}
			_, pos := p.Position() // ts is the pos-th batch of the epoch, from 1
			if err := d.Write(epoch, pos-1, ts); err != nil {
				ts.Release()
				return nil, err
			}
			data, label := ts.Data[0], ts.Label[0]
			real := ts.Len() - ts.Padded
			for i := 0; draw && i < real && sheet.Len() < cfg.SheetSize; i++ {
				sheet.AddFloat(data.F32[i*per:i*per+sheet.Channels*h*w], 0, 1)
				res.Labels = append(res.Labels, label.F32[i*len(label.F32)/ts.Len()])
			}
			images += real
			bar.Add(real)
			ts.Release() // its memory may now hold a later batch
			res.Batches++
			if ctx.Err() != nil {
				bar.Finish()
				return nil, stopped()
			}
			if res.Batches == cfg.Run.StopAfter {
				bar.Finish()
				ck, err := save()
				if err != nil {
					return nil, err
				}
				data, _ := ck.Encode()
				res.Stopped = true
				fmt.Fprintf(out, "stopped after %d batches, at epoch %d step %d; checkpoint: %s (%d bytes)\n",
					res.Batches, ck.Epoch, ck.Step, cfg.Run.Checkpoint, len(data))
				return res, nil
			}
		}
		elapsed, rate := bar.Finish()
		if cfg.Run.Checkpoint != "" {
			if _, err := save(); err != nil {
				return nil, err
			}
		}
		if ctx.Err() != nil {
			return nil, stopped() // between two epochs
		}
		if images == 0 && from != nil && epoch == from.Epoch {
			continue // resumed at the end of this epoch
		}
		total += elapsed
		all += images
		res.Images = images
		res.EpochRates = append(res.EpochRates, rate)
		fmt.Fprintf(out, "epoch %d/%d: %d images in %v: %.0f images/s (%d decoding goroutines)\n", epoch+1, cfg.Epochs, images,
			elapsed.Round(time.Millisecond), rate, threads(cfg.Threads))
	}
	if ctx.Err() != nil {
		return nil, stopped()
	}
	if total > 0 {
		res.Rate = float64(all) / total.Seconds()
	}
	res.Stats = p.Stats()
	if !draw {
		return res, nil
	}
	res.Sheet = filepath.Join(cfg.OutDir, "contact_sheet.png")
	if err := sheet.WritePNG(res.Sheet); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "contact sheet: %d augmented crops of the first epoch, labels row by row:\n", sheet.Len())
	for i := 0; i < len(res.Labels); i += sheet.Cols {
		row := res.Labels[i:min(i+sheet.Cols, len(res.Labels))]
		fmt.Fprintln(out, " ", strings.Trim(fmt.Sprint(row), "[]"))
	}
	return res, nil
}
