package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
)

// TestRunSmall runs the program on a short epoch: every epoch holds the
// weights' proportions to within 1% (exactly, to the sample), and the run
// stopped mid-epoch with 1 worker and resumed with 3 gives the straight
// run's batches.
func TestRunSmall(t *testing.T) {
	cfg := defaultConfig()
	cfg.Length, cfg.BatchSize, cfg.StopStep = 6000, 64, 40
	var out bytes.Buffer
	res, err := run(context.Background(), cfg, &out)
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Same || !strings.Contains(out.String(), "same after resume: yes") {
		t.Fatal("the resumed run differs from the straight run")
	}
	if len(res.Samples) != 2 {
		t.Fatalf("%d epochs", len(res.Samples))
	}
	for e, n := range res.Samples {
		if n != 6000 {
			t.Errorf("epoch %d: %d samples, want 6000", e, n)
		}
		if p := float64(res.Inverted[e]) / float64(n); math.Abs(p-0.3) > 0.01 || res.Inverted[e] != 1800 {
			t.Errorf("epoch %d: %d inverted digits of %d (%.4f), want 1800", e, res.Inverted[e], n, p)
		}
	}
	if !strings.Contains(out.String(), "proportions: plain 0.7000 inverted 0.3000") {
		t.Error("no proportions line")
	}
}

// TestRunStopPastTheEnd: a stop after the last batch of an epoch is an
// error that names the flag, not a silent run without a resume.
func TestRunStopPastTheEnd(t *testing.T) {
	cfg := defaultConfig()
	cfg.Length, cfg.StopStep = 1000, 100
	_, err := run(context.Background(), cfg, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "-stop") {
		t.Fatalf("error %v, want one naming -stop", err)
	}
}
