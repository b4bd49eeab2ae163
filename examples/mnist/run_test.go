package main

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

// TestRunSmall trains on a few hundred samples: it runs every step of the
// example (pipeline, model, evaluation, output) and checks that the model
// learned something, which it cannot when images and labels are not
// aligned. The accuracy bar of the full run is checked by running the
// example.
func TestRunSmall(t *testing.T) {
	cfg := defaultConfig()
	cfg.Epochs = 2
	cfg.BatchSize = 32
	cfg.Hidden = 32
	cfg.LR = 3e-3
	cfg.TrainLimit = 1000
	cfg.TestLimit = 500
	cfg.Log = zaptest.NewLogger(t)
	cfg.PipeLog = cfg.Log
	cfg.PlotDir = filepath.Join(t.TempDir(), "plots")
	cfg.PlotEvery = 5
	var out, bars bytes.Buffer
	cfg.Progress = &bars // not a terminal: no bars
	res, err := run(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("output:\n%s", out.String())
	if res.TrainSamples != 992 || res.TestSamples != 500 {
		t.Errorf("samples: train %d per epoch (want 992: 31 full batches), test %d (want 500)", res.TrainSamples, res.TestSamples)
	}
	if len(res.EpochLoss) != 2 || !(res.EpochLoss[1] < res.EpochLoss[0]) {
		t.Errorf("epoch losses %v: want two, falling", res.EpochLoss)
	}
	// Chance is 0.1; misaligned labels stay near it.
	if res.TestAccuracy < 0.6 {
		t.Errorf("test accuracy %.3f < 0.6 after 2 epochs of 1000 samples", res.TestAccuracy)
	}
	for _, want := range []string{"epoch 1/2: loss ", "epoch 2/2: loss ", "samples/s", "mnist", "batch", "tensorize", "prefetch"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if bars.Len() != 0 {
		t.Errorf("progress written to a buffer:\n%s", bars.String())
	}
	// 2 epochs of 31 steps, a point every 5 steps and one for the last 2.
	if c := res.Curve; len(c.Step) != 13 || c.Step[0] != 5 || c.Step[12] != 62 ||
		len(c.Loss) != 13 || len(c.Accuracy) != 13 || len(c.Rate) != 13 {
		t.Errorf("curve %+v: want 13 points, at steps 5, 10, ..., 60, 62", c)
	}
	if len(res.Plots) != 3 {
		t.Errorf("plots %v: want loss, accuracy and samples/s", res.Plots)
	}
	for _, path := range res.Plots {
		if filepath.Dir(path) != cfg.PlotDir {
			t.Errorf("plot %s outside %s", path, cfg.PlotDir)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		f.Close()
	}
	// Every step of the training pipeline ran both epochs: the files were
	// read once, before, into the table.
	for _, st := range res.PipelineStats {
		if st.Passes != 2 || st.Errors != 0 {
			t.Errorf("step %s: %d passes, %d errors", st.Name, st.Passes, st.Errors)
		}
	}
}

// TestRunPrefetchZero runs with -prefetch 0, which turns prefetching off
// (stage.Buffered with 0, as PaddlePaddle's buffered with size 0): the
// training loop assembles every batch itself, and every batch arrives.
func TestRunPrefetchZero(t *testing.T) {
	cfg := defaultConfig()
	cfg.Epochs = 1
	cfg.BatchSize = 32
	cfg.Hidden = 16
	cfg.Prefetch = 0
	cfg.TrainLimit = 256
	cfg.TestLimit = 100
	cfg.PlotDir = ""
	res, err := run(context.Background(), cfg, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	last := res.PipelineStats.Last()
	if len(res.Plots) != 0 {
		t.Errorf("plots %v written with no folder", res.Plots)
	}
	if res.TrainSamples != 256 || last.Name != "prefetch" || last.Samples != 256/32 {
		t.Errorf("train samples %d, last step %+v; want 256 samples in 8 batches through \"prefetch\"", res.TrainSamples, last)
	}
}

func TestRunMissingData(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	_, err := run(context.Background(), cfg, &bytes.Buffer{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "-data") {
		t.Errorf("err = %v, want a missing file and a hint", err)
	}
}

func TestRunCancelled(t *testing.T) {
	cfg := defaultConfig()
	cfg.TrainLimit = 256
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(ctx, cfg, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
