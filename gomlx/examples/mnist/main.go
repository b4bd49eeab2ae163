// Command mnist trains an MNIST classifier with GoMLX's own training loop
// (train.Loop, Adam), fed by a tensorfeed pipeline through tfgomlx: the
// training set in memory, shuffled by index every epoch, assembled into
// tensors ahead of the loop (Buffered). It runs on GoMLX's pure-Go backend
// (simplego), so it needs no accelerator plugin.
//
//	go run ./examples/mnist                      # train, then "test accuracy: 0.97.." as the last line
//	go run ./examples/mnist -compare             # the same model and steps fed by GoMLX's in-memory dataset too
//	go run ./examples/mnist -verify-resume 300   # stop at step 300, resume model and data, compare with a straight run
//	go run ./examples/mnist -checkpoint ck -stop-after 500   # save GoMLX's and tensorfeed's checkpoints at step 500
//	go run ./examples/mnist -checkpoint ck                   # resume both from ck, train to -steps
//
// A checkpoint folder holds GoMLX's checkpoint (variables, Adam's state,
// the global step) and, beside it, tensorfeed's checkpoint of the feed at
// the same global step (tensorfeed-step-NNNNNNNN.json), so a resumed run
// trains on exactly the batches a straight run would have.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/gomlx/gomlx/backends"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

// out is where the program prints (tests read it).
var out io.Writer = os.Stdout

func main() {
	cfg := defaults()
	flag.StringVar(&cfg.DataDir, "data", "", "folder of the MNIST IDX files (default: data/mnist of the repository, found from the working directory)")
	flag.IntVar(&cfg.Batch, "batch", cfg.Batch, "training batch size")
	flag.IntVar(&cfg.Steps, "steps", cfg.Steps, "training steps in all (global steps; a resumed run trains up to this step)")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle and of the model's initial weights")
	flag.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "hidden units of the model")
	flag.Float64Var(&cfg.LR, "lr", cfg.LR, "Adam's learning rate")
	flag.IntVar(&cfg.Prefetch, "prefetch", cfg.Prefetch, "batches tensorfeed assembles ahead of the training loop")
	flag.StringVar(&cfg.Model, "model", cfg.Model, "mlp (784-hidden-10) or cnn (two small convolutions, then the MLP)")
	compare := flag.Bool("compare", false, "also train the same model for the same steps on GoMLX's in-memory dataset, and print both")
	verify := flag.Int("verify-resume", 0, "stop at this step, save model and feed, resume both and compare every batch with a straight run")
	dir := flag.String("checkpoint", "", "folder of the checkpoints: resumed from when it holds one, saved to at the end")
	stopAfter := flag.Int("stop-after", 0, "stop (and save, with -checkpoint) at this global step")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mnist:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}

	ctx, stop := tensorfeed.NotifyStop(context.Background())
	defer stop()
	if err := run(ctx, cfg, *compare, *verify, *dir, *stopAfter); err != nil {
		fmt.Fprintln(os.Stderr, "mnist:", err)
		pprof.StopCPUProfile()
		os.Exit(tensorfeed.ExitCode(err))
	}
}

func run(ctx context.Context, cfg config, compare bool, verify int, dir string, stopAfter int) error {
	if cfg.DataDir == "" {
		cfg.DataDir = findData()
	}
	if cfg.Model != "mlp" && cfg.Model != "cnn" {
		return fmt.Errorf("-model %q: mlp or cnn", cfg.Model)
	}
	backend, err := backends.New()
	if err != nil {
		return err
	}
	defer backend.Finalize()
	fmt.Fprintf(out, "backend %s on %d cores; model %s; %d steps of %d\n", backend.Name(), runtime.NumCPU(), cfg.Model, cfg.Steps, cfg.Batch)
	d, err := load(ctx, cfg)
	if err != nil {
		return err
	}
	if verify > 0 {
		r, err := verifyResume(ctx, backend, cfg, d, verify)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "test accuracy: %.4f\n", r.acc)
		return nil
	}
	var mem *result
	if compare {
		if mem, err = runInMemory(ctx, backend, cfg, d); err != nil {
			return err
		}
	}
	r, err := runFeed(ctx, backend, cfg, d, dir, stopAfter)
	if err != nil {
		return err
	}
	if r.stoppedAt > 0 {
		fmt.Fprintf(out, "stopped at step %d; model and feed saved in %s (resume: the same command without -stop-after)\n", r.stoppedAt, dir)
	}
	fmt.Fprint(out, r.report)
	if mem != nil {
		fmt.Fprintf(out, "\n%-22s %9s %9s %13s\n", "fed by", "accuracy", "train s", "waited (s)")
		fmt.Fprintf(out, "%-22s %9.4f %9.1f %13.2f\n", "GoMLX in-memory", mem.acc, mem.wall.Seconds(), mem.waited.Seconds())
		fmt.Fprintf(out, "%-22s %9.4f %9.1f %13.2f  (tensorfeed's report: %.2f)\n\n", "tensorfeed", r.acc, r.wall.Seconds(), r.waited.Seconds(), r.feedWaited.Seconds())
	}
	fmt.Fprintf(out, "test accuracy: %.4f\n", r.acc)
	return nil
}

// result is what a training run measured.
type result struct {
	acc        float64       // test accuracy
	wall       time.Duration // training time (the loop, compilation included; not the evaluation)
	waited     time.Duration // time in the dataset's Yield
	feedWaited time.Duration // tensorfeed's own count: how long the loop waited for its feed
	sums       []string      // digests of the batches, one per step of this run
	first      int           // the global step before this run's first step
	model      string        // digest of the model's variables after training
	stoppedAt  int           // the step a -stop-after run saved at
	report     string
}

// runFeed trains on the tensorfeed feed up to cfg.Steps (or stopAt),
// resuming model and feed from dir when it holds a checkpoint, and saving
// both there at the end.
func runFeed(ctx context.Context, backend backends.Backend, cfg config, d *data, dir string, stopAt int) (*result, error) {
	s, err := newSession(backend, cfg, dir)
	if err != nil {
		return nil, err
	}
	var ck *pipeline.Checkpoint
	if dir != "" {
		if ck, err = s.feedCheckpoint(dir); err != nil {
			return nil, err
		}
	}
	ds, err := trainDataset(ctx, cfg, d, ck)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	r := &result{first: s.globalStep()}
	if ck != nil {
		r.report = fmt.Sprintf("resumed model and feed at step %d (feed: epoch %d, batch %d)\n", r.first, ck.Epoch, ck.Step)
	}
	target := cfg.Steps
	if stopAt > 0 && stopAt < target {
		target, r.stoppedAt = stopAt, stopAt
	}
	rec := &recorder{Dataset: ds}
	start := time.Now()
	if _, err := s.loop.RunToGlobalStep(rec, target); err != nil {
		return nil, err
	}
	r.wall = time.Since(start)
	r.waited, r.sums = rec.waited, rec.sums
	rep := ds.Feed().Stats().Report()
	r.feedWaited = rep.Waited
	r.report += fmt.Sprintf("trained steps %d to %d in %.1fs, median step %v; the loop waited %.2fs for data (tensorfeed: %v)\n",
		r.first, s.globalStep(), r.wall.Seconds(), s.loop.MedianTrainStepDuration().Round(time.Microsecond), r.waited.Seconds(), rep.Waited.Round(time.Millisecond))
	if dir != "" {
		if err := s.save(ctx, ds, dir); err != nil {
			return nil, err
		}
	}
	if r.model, err = s.modelDigest(); err != nil {
		return nil, err
	}
	if r.stoppedAt > 0 {
		return r, nil
	}
	r.acc, err = s.testAccuracy(ctx, cfg, d)
	return r, err
}

// runInMemory trains the same model for the same steps on GoMLX's own
// in-memory dataset (GoMLX shuffles and batches), and evaluates it on the
// same test feed.
func runInMemory(ctx context.Context, backend backends.Backend, cfg config, d *data) (*result, error) {
	mds, err := inMemory(backend, cfg, d)
	if err != nil {
		return nil, err
	}
	defer mds.FinalizeAll()
	s, err := newSession(backend, cfg, "")
	if err != nil {
		return nil, err
	}
	rec := &recorder{Dataset: mds}
	start := time.Now()
	if _, err := s.loop.RunSteps(rec, cfg.Steps); err != nil {
		return nil, err
	}
	r := &result{wall: time.Since(start), waited: rec.waited}
	fmt.Fprintf(out, "GoMLX in-memory: trained %d steps in %.1fs, median step %v; the loop waited %.2fs for data\n",
		cfg.Steps, r.wall.Seconds(), s.loop.MedianTrainStepDuration().Round(time.Microsecond), r.waited.Seconds())
	r.acc, err = s.testAccuracy(ctx, cfg, d)
	return r, err
}

// verifyResume trains cfg.Steps straight, then again stopping at step k
// (saving GoMLX's and tensorfeed's checkpoints in a temporary folder) and
// resuming from there in a new session, and compares the batches of every
// step and the final models. It prints "same batches after resume: yes"
// when they agree and returns an error when they do not.
func verifyResume(ctx context.Context, backend backends.Backend, cfg config, d *data, k int) (*result, error) {
	if k >= cfg.Steps {
		return nil, fmt.Errorf("-verify-resume %d: the stop must come before the last step (-steps %d)", k, cfg.Steps)
	}
	dir, err := os.MkdirTemp("", "tensorfeed-gomlx-resume-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	straight, err := runFeed(ctx, backend, cfg, d, "", 0)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "straight: %d steps, model %s\n", len(straight.sums), straight.model)
	stopped, err := runFeed(ctx, backend, cfg, d, dir, k)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "stopped:  %d steps, saved in %s\n", len(stopped.sums), filepath.Base(dir))
	resumed, err := runFeed(ctx, backend, cfg, d, dir, 0)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "resumed:  from step %d, %d steps, model %s\n", resumed.first, len(resumed.sums), resumed.model)
	got := append(append([]string(nil), stopped.sums...), resumed.sums...)
	if resumed.first != k || len(got) != len(straight.sums) {
		return nil, fmt.Errorf("the stopped and resumed runs trained %d+%d steps from step %d, the straight run %d", len(stopped.sums), len(resumed.sums), resumed.first, len(straight.sums))
	}
	for i := range got {
		if got[i] != straight.sums[i] {
			fmt.Fprintln(out, "same batches after resume: no")
			return nil, fmt.Errorf("step %d: the resumed run trained on batch %s, the straight run on %s", i, got[i], straight.sums[i])
		}
	}
	fmt.Fprintln(out, "same batches after resume: yes")
	same := "yes"
	if resumed.model != straight.model {
		same = "no (the batches agree; GoMLX's arithmetic differed)"
	}
	fmt.Fprintf(out, "same model after resume: %s\n", same)
	return resumed, nil
}

// findData returns data/mnist of the repository that holds the working
// directory (or "data/mnist" when there is none).
func findData() string {
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join("data", "mnist")
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "data", "mnist")
		if _, err := os.Stat(filepath.Join(p, "train-labels-idx1-ubyte.gz")); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return filepath.Join("data", "mnist")
		}
	}
}
