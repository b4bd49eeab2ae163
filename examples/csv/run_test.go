package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

func TestRunBothLayouts(t *testing.T) {
	cfg := defaultConfig()
	cfg.Epochs = 30
	cfg.Log = zaptest.NewLogger(t)
	var out, bars bytes.Buffer
	cfg.Progress = &bars
	res, err := run(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if len(res) != 2 || res[0].Layout != "csviter" || res[1].Layout != "header" {
		t.Fatalf("results %+v", res)
	}
	for _, r := range res {
		if r.Train != 120 || r.Test != 30 || r.Features != 4 {
			t.Errorf("%s: %d training rows, %d held out, %d features; want 120, 30, 4", r.Layout, r.Train, r.Test, r.Features)
		}
		if !(r.Loss < r.FirstLoss/2) {
			t.Errorf("%s: loss %.3f -> %.3f, want it at least halved", r.Layout, r.FirstLoss, r.Loss)
		}
		if r.Accuracy < 0.85 {
			t.Errorf("%s: held-out accuracy %.3f < 0.85", r.Layout, r.Accuracy)
		}
		if !strings.Contains(out.String(), r.Layout+": 120 training rows") {
			t.Errorf("output lacks the %s line", r.Layout)
		}
	}
	// The two layouts hold the same numbers in the same order, so with the
	// same seed they train the same model.
	if res[0].Loss != res[1].Loss || res[0].Accuracy != res[1].Accuracy {
		t.Errorf("layouts differ: %+v vs %+v", res[0], res[1])
	}
	if bars.Len() != 0 {
		t.Errorf("progress written to a buffer:\n%s", bars.String())
	}
}

func TestRunUnknownLayout(t *testing.T) {
	cfg := defaultConfig()
	cfg.Layout = "parquet"
	if _, err := run(context.Background(), cfg, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "parquet") {
		t.Errorf("err = %v", err)
	}
}

func TestRunMissingFile(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.Layout = "header"
	if _, err := run(context.Background(), cfg, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "iris.data") ||
		!strings.Contains(err.Error(), "-data") {
		t.Errorf("err = %v", err)
	}
}
