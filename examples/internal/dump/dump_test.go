package dump_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/examples/internal/dump"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		bad  string
	}{
		{nil, ""},
		{[]string{"-stop-after", "3", "-checkpoint", "c.json"}, ""},
		{[]string{"-checkpoint", "c.json", "-resume", "c.json", "-dump", "d.tsv", "-feed-only"}, ""},
		{[]string{"-stop-after", "-1"}, "-stop-after"},
		{[]string{"-stop-after", "2"}, "-checkpoint"},
	} {
		var f dump.Flags
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		f.Register(fs, "int32")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := f.Check()
		if (err == nil) != (tt.bad == "") || (err != nil && !strings.Contains(err.Error(), tt.bad)) {
			t.Errorf("%q: %v, want an error naming %q", tt.args, err, tt.bad)
		}
	}
}

func batchOf(x, y float32) *tensor.Batch {
	return &tensor.Batch{
		Data:  []tensor.Tensor{{Name: "x", Shape: []int{1}, DType: sample.Float32, F32: []float32{x}}},
		Label: []tensor.Tensor{{Name: "y", Shape: []int{1}, DType: sample.Int32, I32: []int32{int32(y)}}},
	}
}

func TestHash(t *testing.T) {
	b := &tensor.Batch{
		Data:  []tensor.Tensor{{Name: "x", Shape: []int{2}, DType: sample.Float32, F32: []float32{1, -2}}},
		Label: []tensor.Tensor{{Name: "y", Shape: []int{2}, DType: sample.Float32, F32: []float32{3, 4}}},
	}
	// sha256 of 00 00 80 3f  00 00 00 c0  03 00 00 00  04 00 00 00.
	const want = "5926322322f0190c9899ad14ba0005654990e91e798449139e6a0865eb600e8c"
	got, err := dump.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	// int32 labels hash as the same bytes.
	b.Label[0] = tensor.Tensor{Name: "y", Shape: []int{2}, DType: sample.Int32, I32: []int32{3, 4}}
	if got, err := dump.Hash(b); err != nil || got != want {
		t.Errorf("int32 labels: hash %s, %v; want %s", got, err, want)
	}
	b.Label[0] = tensor.Tensor{Name: "y", Shape: []int{2}, DType: sample.Float32, F32: []float32{0.5, 4}}
	if _, err := dump.Hash(b); err == nil || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("label 0.5: %v", err)
	}
}

// TestWriter: a new run truncates the dump, a resumed one appends to it,
// each line is epoch, step and the batch's hash; no -dump writes nothing.
func TestWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.tsv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(resumed bool, epoch int, step int64, b *tensor.Batch) {
		t.Helper()
		d, err := dump.Open(path, resumed)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Write(epoch, step, b); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(false, 0, 3, batchOf(1, 2))
	write(true, 1, 0, batchOf(2, 1))
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h1, _ := dump.Hash(batchOf(1, 2))
	h2, _ := dump.Hash(batchOf(2, 1))
	if want := "0\t3\t" + h1 + "\n1\t0\t" + h2 + "\n"; string(got) != want {
		t.Errorf("dump %q, want %q", got, want)
	}
	var none *dump.Writer
	if d, err := dump.Open("", false); d != none || err != nil {
		t.Errorf("Open(\"\"): %v, %v", d, err)
	}
	if err := none.Write(0, 0, batchOf(1, 1)); err != nil || none.Flush() != nil || none.Close() != nil {
		t.Errorf("a nil Writer: %v", err)
	}
	bad := &tensor.Batch{Data: batchOf(1, 1).Data}
	d, err := dump.Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Write(2, 5, bad); err == nil || !strings.Contains(err.Error(), "-dump: epoch 2 step 5") {
		t.Errorf("a batch without labels: %v", err)
	}
}

// TestStopError: the one line a stopped run ends with, and the exit
// status of the signal that stopped it.
func TestStopError(t *testing.T) {
	sig := &dump.StopError{Epoch: 1, Step: 4, Checkpoint: "ck.json", Cause: &tensorfeed.SignalError{Signal: syscall.SIGTERM}}
	if got, want := sig.Error(), "stopped by SIGTERM at epoch 1 step 4; checkpoint written to ck.json"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if tensorfeed.ExitCode(sig) != 143 {
		t.Errorf("exit status %d, want 143", tensorfeed.ExitCode(sig))
	}
	none := &dump.StopError{Step: 1, Cause: context.Canceled}
	if got, want := none.Error(), "stopped at epoch 0 step 1 (context canceled); no checkpoint written (-checkpoint not set)"; got != want ||
		!errors.Is(none, context.Canceled) || tensorfeed.ExitCode(none) != 1 {
		t.Errorf("%q (status %d), want %q", got, tensorfeed.ExitCode(none), want)
	}
}

// TestCheckOutputs: a checkpoint or a dump in a folder that cannot take
// a file is an error naming the flag before the run starts.
func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := dump.Flags{Checkpoint: filepath.Join(file, "ck.json"), Dump: filepath.Join(dir, "none", "d.tsv")}
	err := f.CheckOutputs()
	if err == nil || !strings.Contains(err.Error(), "-checkpoint "+f.Checkpoint) || !strings.Contains(err.Error(), "-dump "+f.Dump) {
		t.Errorf("CheckOutputs: %v, want errors naming -checkpoint and -dump", err)
	}
	if err := (&dump.Flags{Checkpoint: filepath.Join(dir, "ck.json"), Dump: file}).CheckOutputs(); err != nil {
		t.Errorf("good outputs: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckOutputs left files: %v", entries)
	}
}
