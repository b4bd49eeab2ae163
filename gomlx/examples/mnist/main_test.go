package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// GoMLX's pure-Go backend runs independent ops of a graph in parallel
	// with unsynchronised bookkeeping that go test -race reports; one op at
	// a time (each op still uses every core) keeps the tests race-clean.
	if os.Getenv("GOMLX_BACKEND") == "" {
		os.Setenv("GOMLX_BACKEND", "go:ops_sequential")
	}
	goleak.VerifyTestMain(m)
}

// small is a run that takes seconds: a few hundred digits, a small model.
func small(t *testing.T) config {
	t.Helper()
	cfg := defaults()
	cfg.DataDir = "../../../data/mnist"
	cfg.TrainLimit, cfg.TestLimit = 600, 300
	cfg.Batch, cfg.EvalBatch, cfg.Steps, cfg.Hidden = 50, 100, 30, 32
	return cfg
}

func capture(t *testing.T) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	old := out
	out = &b
	t.Cleanup(func() { out = old })
	return &b
}

// A run stopped at step k, its model (GoMLX's checkpoint) and feed
// (tensorfeed's, beside it) saved, and resumed in a new session trains on
// the batches of a straight run, step for step, across an epoch's end
// (12 batches per epoch here), and ends with the same model.
func TestVerifyResume(t *testing.T) {
	b := capture(t)
	cfg := small(t)
	if err := run(context.Background(), cfg, false, 17, "", 0); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	for _, want := range []string{"resumed:  from step 17, 13 steps", "same batches after resume: yes", "same model after resume: yes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); !strings.HasPrefix(lines[len(lines)-1], "test accuracy: ") {
		t.Errorf("last line %q, want the test accuracy", lines[len(lines)-1])
	}
}

// -checkpoint with -stop-after saves both checkpoints; the same command
// without -stop-after resumes both and trains to -steps; the in-memory
// comparison prints both rows.
func TestCheckpointFolderAndCompare(t *testing.T) {
	b := capture(t)
	cfg := small(t)
	dir := t.TempDir()
	if err := run(context.Background(), cfg, false, 0, dir, 20); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "stopped at step 20") {
		t.Fatalf("output:\n%s", b)
	}
	if fs, _ := os.ReadDir(dir); len(fs) < 3 {
		t.Fatalf("the checkpoint folder holds %d files, want GoMLX's two and tensorfeed's", len(fs))
	}
	if _, err := os.Stat(feedFile(dir, 20)); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := run(context.Background(), cfg, true, 0, dir, 0); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	for _, want := range []string{"resumed model and feed at step 20 (feed: epoch 1, batch 8)", "trained steps 20 to 30", "GoMLX in-memory", "tensorfeed", "test accuracy: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// The backend is the pure-Go one: the only one the program links.
func TestBackendIsPureGo(t *testing.T) {
	b, err := backends.New()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	if b.Name() != "SimpleGo (go)" && !strings.Contains(strings.ToLower(b.Name()), "go") {
		t.Fatalf("backend %q", b.Name())
	}
}
