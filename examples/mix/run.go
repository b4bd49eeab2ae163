package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

type config struct {
	DataDir       string
	Length        int // samples per epoch; 0: source.Mix's default
	Epochs        int
	BatchSize     int
	StopStep      int64 // the batch of the last epoch after which the second run stops
	Workers       int   // ParallelMap workers, straight run and the run that stops
	ResumeWorkers int   // ParallelMap workers of the resumed run
	Seed          uint64
}

func defaultConfig() config {
	return config{DataDir: dataDir, Epochs: 2, BatchSize: 128, StopStep: 300, Workers: 1, ResumeWorkers: 3, Seed: 42}
}

// weights of the plain and the inverted digits.
var weights = []float64{0.7, 0.3}

// digit is a sample of the mixture; its tagged fields are the tensors.
type digit struct {
	Image    *[mnist.Pixels]uint8 `tensor:"image,float32"`     // shared with the table for plain digits: read-only
	Label    uint8                `tensor:"label,label,int32"` // the digit
	Inverted uint8                `tensor:"inverted,uint8"`    // 1 for a digit of the second set
	Index    int32                `tensor:"index,int32"`       // its place in the training files
}

// result is what a run saw.
type result struct {
	Length   int      // samples per epoch
	Samples  []int    // per epoch
	Inverted []int    // per epoch
	Same     bool     // the stopped and resumed run gave the straight run's batches
	Batches  [][]byte // digests of the straight run's batches
}

// mixture returns the 0.7/0.3 mixture of the training digits and the same
// digits inverted, as one random-access dataset.
func mixture(ctx context.Context, cfg config) (source.Indexed[digit], error) {
	train, err := mnist.Train(cfg.DataDir).Load(ctx) // the training files only: the test set is never read
	if err != nil {
		return nil, err
	}
	plain := source.MapIndexed(train, func(s mnist.Sample) (digit, error) {
		return digit{Image: s.Image, Label: s.Label, Index: int32(s.Index)}, nil
	})
	// The second set, built from the first by a map that keeps random
	// access: every pixel p becomes 255-p.
	inverted := source.MapIndexed(train, func(s mnist.Sample) (digit, error) {
		img := new([mnist.Pixels]uint8)
		for i, p := range s.Image {
			img[i] = 255 - p
		}
		return digit{Image: img, Label: s.Label, Inverted: 1, Index: int32(s.Index)}, nil
	})
	return source.Mix(cfg.Length, weights, plain, inverted), nil
}

// feed returns the pipeline: the mixture shuffled by index every epoch,
// a ParallelMap (where decoding or augmentation would go) with the given
// workers, tensors of a batch each, prefetched.
func feed(mix source.Indexed[digit], cfg config, workers int) *pipeline.Pipe[*tensor.Batch] {
	shuffled := pipeline.From(source.ReadIndexed(mix, source.ShuffleIndex(cfg.Seed)))
	decoded := pipeline.ParallelMap(shuffled, workers, func(d digit) (digit, error) { return d, nil }).Named("decode")
	return pipeline.Tensorize(decoded, sink.Of[digit](cfg.BatchSize, sink.Scale("image", -1, 1)), batch.Keep).Buffered(2)
}

// digest is the SHA-256 of every tensor of a batch.
func digest(b *tensor.Batch) []byte {
	h := sha256.New()
	for _, name := range []string{"image", "label", "inverted", "index"} {
		t, ok := b.Get(name)
		if !ok {
			panic("no tensor " + name)
		}
		for _, d := range t.Shape {
			_ = binary.Write(h, binary.LittleEndian, int64(d))
		}
		for _, data := range []any{t.F32, t.I32, t.U8} {
			_ = binary.Write(h, binary.LittleEndian, data)
		}
	}
	return h.Sum(nil)
}

func run(ctx context.Context, cfg config, out io.Writer) (*result, error) {
	mix, err := mixture(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res := &result{Length: mix.Len()}
	fmt.Fprintf(out, "mixture: the training digits plain and inverted at %v/%v, an epoch of %d samples (the test digits are not read)\n", weights[0], weights[1], res.Length)

	// 1. The straight run, with cfg.Workers workers.
	straight := feed(mix, cfg, cfg.Workers)
	for epoch, pass := range straight.Epochs(ctx, cfg.Epochs) {
		samples, inverted, batches := 0, 0, 0
		for b, err := range pass {
			if err != nil {
				return nil, err
			}
			inv, _ := b.Get("inverted")
			for _, v := range inv.U8[:(b.Len() - b.Padded)] {
				inverted += int(v)
			}
			samples += (b.Len() - b.Padded)
			batches++
			res.Batches = append(res.Batches, digest(b))
			b.Release()
		}
		res.Samples = append(res.Samples, samples)
		res.Inverted = append(res.Inverted, inverted)
		fmt.Fprintf(out, "epoch %d: %d samples in %d batches, proportions: plain %.4f inverted %.4f (weights %v/%v)\n",
			epoch, samples, batches, float64(samples-inverted)/float64(samples), float64(inverted)/float64(samples), weights[0], weights[1])
	}

	// 2. The same run, stopped after batch cfg.StopStep of the last epoch:
	// a checkpoint in a file.
	dir, err := os.MkdirTemp("", "tensorfeed-mix")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ckPath := filepath.Join(dir, "checkpoint.json")
	var got [][]byte
	stopped := feed(mix, cfg, cfg.Workers)
	last := cfg.Epochs - 1
run:
	for _, pass := range stopped.Epochs(ctx, cfg.Epochs) {
		for b, err := range pass {
			if err != nil {
				return nil, err
			}
			got = append(got, digest(b))
			b.Release()
			if epoch, step := stopped.Position(); epoch == last && step == cfg.StopStep {
				ck, err := stopped.Checkpoint(ctx)
				if err != nil {
					return nil, err
				}
				if err := ck.WriteFile(ckPath); err != nil {
					return nil, err
				}
				info, err := os.Stat(ckPath)
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(out, "stopped at epoch %d batch %d with %d ParallelMap worker(s): a checkpoint of %d bytes\n", epoch, step, cfg.Workers, info.Size())
				break run
			}
		}
	}
	if len(got) == len(res.Batches) {
		return nil, fmt.Errorf("the last epoch has fewer than %d batches: nothing to stop in (-stop)", cfg.StopStep)
	}

	// 3. A new pipeline, with another number of workers, resumed from the
	// file: it goes on from the batch after the checkpoint.
	ck, err := pipeline.ReadCheckpoint(ckPath)
	if err != nil {
		return nil, err
	}
	resumed := feed(mix, cfg, cfg.ResumeWorkers)
	epochs, err := resumed.EpochsFrom(ctx, ck, cfg.Epochs)
	if err != nil {
		return nil, err
	}
	rest := 0
	for _, pass := range epochs {
		for b, err := range pass {
			if err != nil {
				return nil, err
			}
			got = append(got, digest(b))
			b.Release()
			rest++
		}
	}
	fmt.Fprintf(out, "resumed with %d ParallelMap workers: %d batches to the end\n", cfg.ResumeWorkers, rest)
	res.Same = slices.EqualFunc(got, res.Batches, slices.Equal)
	answer := "yes"
	if !res.Same {
		answer = fmt.Sprintf("NO (%d batches against %d)", len(got), len(res.Batches))
	}
	fmt.Fprintf(out, "same after resume: %s\n", answer)
	if !res.Same {
		return res, fmt.Errorf("the resumed run differs from the straight run")
	}
	return res, nil
}
