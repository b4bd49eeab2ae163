package resume_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/examples/internal/resume"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// newPipe returns a pipeline of batches of 4 over 30 numbers shuffled by
// index: 7 full batches per epoch (the rest dropped), a prefetch of
// prefetch batches.
func newPipe(prefetch int) *pipeline.Pipe[*tensor.Batch] {
	xs := make([]int, 30)
	for i := range xs {
		xs[i] = i
	}
	s := sink.New(4,
		[]sink.Field[int]{sink.Float32("x", []int{2}, func(v int, dst []float32) { dst[0], dst[1] = float32(v), -float32(v) })},
		[]sink.Field[int]{sink.Int32("y", nil, func(v int, dst []int32) { dst[0] = int32(v % 3) })})
	p := pipeline.From(resume.Tagged("numbers", source.ReadIndexed(source.IndexSlice(xs), source.ShuffleIndex(7))))
	return pipeline.Tensorize(p, s, batch.Drop).Buffered(prefetch)
}

// feed runs the epochs of a run with flags f and returns the run.
func feed(t *testing.T, f resume.Flags, prefetch, epochs int) *resume.Run {
	t.Helper()
	r, err := resume.Start(context.Background(), f, newPipe(prefetch), epochs)
	if err != nil {
		t.Fatal(err)
	}
	for _, pass := range r.Epochs() {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestStopResume(t *testing.T) {
	dir := t.TempDir()
	straight := filepath.Join(dir, "straight.tsv")
	feed(t, resume.Flags{Dump: straight}, 2, 3)
	want, err := os.ReadFile(straight)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(want), "\n"); n != 21 {
		t.Fatalf("straight dump of %d lines, want 3 epochs of 7:\n%s", n, want)
	}
	for _, k := range []int{1, 3, 7, 8, 20, 21} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			dump, ck := filepath.Join(dir, fmt.Sprint(k, ".tsv")), filepath.Join(dir, fmt.Sprint(k, ".json"))
			r := feed(t, resume.Flags{Dump: dump, StopAfter: k, Checkpoint: ck}, 2, 3)
			c := r.Stopped()
			if c == nil || r.Batches() != k || int64(c.Epoch*7)+c.Step != int64(k) || r.CheckpointBytes() == 0 {
				t.Fatalf("stopped at %+v after %d batches, want after %d", c, r.Batches(), k)
			}
			r = feed(t, resume.Flags{Dump: dump, Resume: ck, Checkpoint: ck}, 0, 3)
			if r.Resumed() == nil || r.Stopped() != nil || r.Batches() != 21-k {
				t.Errorf("resumed from %+v: %d batches, want %d", r.Resumed(), r.Batches(), 21-k)
			}
			got, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("stopped after %d and resumed:\n%s\nstraight:\n%s", k, got, want)
			}
			// The last epoch's end was checkpointed: resuming from it
			// delivers nothing.
			if r := feed(t, resume.Flags{Resume: ck}, 1, 3); r.Batches() != 0 {
				t.Errorf("resumed from the end of the run: %d batches", r.Batches())
			}
		})
	}
}

func TestStartRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := resume.Start(context.Background(), resume.Flags{Resume: filepath.Join(dir, "none.json")}, newPipe(1), 1); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "-resume") {
		t.Errorf("missing checkpoint: %v", err)
	}
	ck := filepath.Join(dir, "other.json")
	other := pipeline.Tensorize(pipeline.From(source.Slice([]int{1, 2, 3})),
		sink.New(2, []sink.Field[int]{sink.Float32("x", nil, func(v int, dst []float32) { dst[0] = float32(v) })}, nil), batch.Keep)
	c, err := other.CheckpointAt(context.Background(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFile(ck); err != nil {
		t.Fatal(err)
	}
	_, err = resume.Start(context.Background(), resume.Flags{Resume: ck}, newPipe(1), 1)
	if !errors.Is(err, pipeline.ErrCheckpoint) || !errors.Is(err, source.ErrState) || !strings.Contains(err.Error(), "numbers") {
		t.Errorf("checkpoint of another pipeline: %v", err)
	}
}

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
		var f resume.Flags
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

func TestHash(t *testing.T) {
	b := &tensor.Batch{
		Data:  []tensor.Tensor{{Name: "x", Shape: []int{2}, DType: sample.Float32, F32: []float32{1, -2}}},
		Label: []tensor.Tensor{{Name: "y", Shape: []int{2}, DType: sample.Float32, F32: []float32{3, 4}}},
	}
	// sha256 of 00 00 80 3f  00 00 00 c0  03 00 00 00  04 00 00 00.
	const want = "5926322322f0190c9899ad14ba0005654990e91e798449139e6a0865eb600e8c"
	got, err := resume.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	// int32 labels hash as the same bytes.
	b.Label[0] = tensor.Tensor{Name: "y", Shape: []int{2}, DType: sample.Int32, I32: []int32{3, 4}}
	if got, err := resume.Hash(b); err != nil || got != want {
		t.Errorf("int32 labels: hash %s, %v; want %s", got, err, want)
	}
	b.Label[0] = tensor.Tensor{Name: "y", Shape: []int{2}, DType: sample.Float32, F32: []float32{3, 4}}
	b.Label[0].F32[0] = 0.5
	if _, err := resume.Hash(b); err == nil || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("label 0.5: %v", err)
	}
}
