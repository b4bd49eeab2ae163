package main

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

func TestRunSmall(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = "../../data/mnist"
	cfg.OutDir = t.TempDir()
	cfg.TrainLimit = 100
	cfg.BatchSize = 16 // 6 batches per epoch: the 8 steps cross an epoch
	cfg.Width = 4
	cfg.Steps = 8
	cfg.SampleEvery = 3
	cfg.LogEvery = 4
	cfg.JudgeEpochs = 1
	cfg.Log = zaptest.NewLogger(t)
	cfg.PipeLog = cfg.Log
	var out bytes.Buffer
	res, err := run(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if res.Steps != 8 {
		t.Errorf("steps = %d", res.Steps)
	}
	if math.IsNaN(res.DLoss) || res.DLoss <= 0 || math.IsNaN(res.GLoss) || res.GLoss <= 0 {
		t.Errorf("losses D %v G %v", res.DLoss, res.GLoss)
	}
	// Eight steps make blobs, not digits: the judge reads almost none of
	// them, and most real digits.
	if res.Readable > 0.1 || res.RealReadable < 0.7 {
		t.Errorf("readable: %.3f of generated digits, %.3f of real ones; want at most 0.1 and at least 0.7", res.Readable, res.RealReadable)
	}
	for _, want := range []string{"step     4 (epoch 0)", "step     8 (epoch 1)", "discriminator loss", "generator loss", "zip3", "steps/s", "readable: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	want := []string{filepath.Join(cfg.OutDir, "step_00003.png"), filepath.Join(cfg.OutDir, "step_00006.png")}
	if len(res.Snapshots) != 2 || res.Snapshots[0] != want[0] || res.Snapshots[1] != want[1] {
		t.Errorf("snapshots %v, want %v", res.Snapshots, want)
	}
	// real.png shows the first batch (16 images: 8 columns, 2 rows of
	// 2x28+1 pixels); generated.png the 64 fixed noise vectors (8 x 8).
	// loss.png is a chart of the losses (its size is the plot package's).
	for _, c := range []struct {
		path string
		w, h int
	}{{res.Real, 8*57 + 1, 2*57 + 1}, {res.Generated, 8*57 + 1, 8*57 + 1}, {res.Snapshots[0], 8*57 + 1, 8*57 + 1}, {res.LossPlot, 0, 0}, {res.AccPlot, 0, 0}, {res.RatePlot, 0, 0}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if b := img.Bounds(); c.w == 0 && (b.Dx() < 100 || b.Dy() < 100) || c.w != 0 && (b.Dx() != c.w || b.Dy() != c.h) {
			t.Errorf("%s: %dx%d, want %dx%d", c.path, b.Dx(), b.Dy(), c.w, c.h)
		}
	}
	// The real batch has ink: some tile pixel is bright.
	f, _ := os.Open(res.Real)
	img, _ := png.Decode(f)
	f.Close()
	bright := 0
	for y := 1; y < 57; y++ {
		for x := 1; x < 57; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r>>8 > 200 {
				bright++
			}
		}
	}
	if bright < 20 {
		t.Errorf("first real digit has %d bright pixels", bright)
	}
	// Every step of the pipeline ran: the zip and the batches passed data.
	for _, st := range res.Stats {
		if st.Errors != 0 || st.Samples == 0 {
			t.Errorf("step %s: %d samples, %d errors", st.Name, st.Samples, st.Errors)
		}
	}
}

func TestStepLearnsToSeparate(t *testing.T) {
	// A few hundred discriminator steps on a fixed real batch against a
	// generator that cannot yet imitate it: D's loss must fall well below
	// log 2 (chance), which checks the wiring of the two updates.
	cfg := defaultConfig()
	cfg.Width = 4
	cfg.NoiseDim = 4
	m := newGAN(cfg)
	m.gOpt.LR = 0 // freeze the generator
	real, z := matFilled(8, 784, 0.9), matFilled(8, 4, 0.1)
	realT := []float64{1, 1, 1, 1, 1, 1, 1, 1}
	fakeT := make([]float64, 8)
	var d, acc float64
	for range 200 {
		d, _, acc = m.step(real, z, realT, fakeT)
	}
	if d > 0.1 || acc != 1 {
		t.Errorf("discriminator loss %.3f, accuracy %.3f after 200 steps on a fixed batch, want < 0.1 and 1", d, acc)
	}
}

func TestRunMissingData(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.OutDir = t.TempDir()
	if _, err := run(context.Background(), cfg, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "-data") {
		t.Errorf("err = %v", err)
	}
}
