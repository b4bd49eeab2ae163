package pipeline_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// epochProbe yields the epoch found in its pass's context.
func epochProbe() source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			yield(fixture.EpochOf(ctx), nil)
		}
	})
}

func TestEpochsSetTheEpoch(t *testing.T) {
	p := pipeline.From(epochProbe())
	var got []int
	for e, pass := range p.Epochs(context.Background(), 4) {
		for v, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			if v != e {
				t.Fatalf("epoch %d: pass saw epoch %d", e, v)
			}
			got = append(got, v)
		}
	}
	if !slices.Equal(got, seq(0, 4)) {
		t.Fatalf("epochs %v", got)
	}
}

// run returns the batches of three epochs of a shuffled, batched pipeline.
func run(t *testing.T, seed uint64) [][][]int {
	p := pipeline.Batch(pipeline.From(count(50)).Shuffle(16, seed).Buffered(3), 8, batch.Drop)
	var epochs [][][]int
	err := loopEpochs(context.Background(), p, 3, func(e int, b batch.Batch[int]) error {
		if e == len(epochs) {
			epochs = append(epochs, nil)
		}
		epochs[e] = append(epochs[e], b.Samples)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return epochs
}

func TestSameSeedSameOutputEpochsDiffer(t *testing.T) {
	a, b := run(t, 42), run(t, 42)
	if len(a) != 3 || len(a[0]) != 6 {
		t.Fatalf("shape: %d epochs, %d batches", len(a), len(a[0]))
	}
	for e := range a {
		if !slices.EqualFunc(a[e], b[e], slices.Equal) {
			t.Fatalf("epoch %d differs between runs with the same seed", e)
		}
	}
	if slices.EqualFunc(a[0], a[1], slices.Equal) || slices.EqualFunc(a[1], a[2], slices.Equal) {
		t.Fatal("epochs repeat the same order")
	}
	if c := run(t, 43); slices.EqualFunc(a[0], c[0], slices.Equal) {
		t.Fatal("another seed gave the same order")
	}
}

// loopEpochs runs n epochs of p and calls f for every sample with its
// epoch: the loop a training program writes over Epochs. It returns the
// first error of a pass or of f (breaking out of the pass, whose
// goroutines Epochs joins), or ctx.Err() when fewer than n epochs ran.
func loopEpochs[T any](ctx context.Context, p *pipeline.Pipe[T], n int, f func(epoch int, v T) error) error {
	done := 0
	for e, pass := range p.Epochs(ctx, n) {
		for v, err := range pass {
			if err != nil {
				return err
			}
			if err := f(e, v); err != nil {
				return err
			}
		}
		done++
	}
	if n >= 0 && done == n {
		return nil
	}
	return ctx.Err()
}

// TestEpochsLoopErrors: a pass's error, an error of the loop body, and a
// cancellation each end the loop over Epochs with that error.
func TestEpochsLoopErrors(t *testing.T) {
	ctx := context.Background()
	// An error in a pass.
	n := 0
	err := loopEpochs(ctx, pipeline.From(failAfter(3, errBoom)), 5, func(int, int) error { n++; return nil })
	if !errors.Is(err, errBoom) || n != 3 {
		t.Fatalf("pass error: %v after %d samples", err, n)
	}
	// An error from f stops an endless, buffered pass.
	errStop := errors.New("stop")
	err = loopEpochs(ctx, pipeline.From(endless()).Buffered(4), -1, func(_ int, v int) error {
		if v == 100 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("f error: %v", err)
	}
	// Cancellation.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = loopEpochs(cctx, pipeline.From(endless()).Buffered(4), -1, func(_ int, v int) error {
		if v == 100 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
	// Cancelled between epochs: no further epoch starts.
	cctx, cancel = context.WithCancel(ctx)
	defer cancel()
	epochs := 0
	err = loopEpochs(cctx, pipeline.From(count(3)), 10, func(e int, v int) error {
		epochs = e + 1
		if v == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || epochs != 1 {
		t.Fatalf("cancel between epochs: %v after %d epochs", err, epochs)
	}
	// Complete.
	sum := 0
	if err := loopEpochs(ctx, pipeline.From(count(4)), 2, func(_ int, v int) error { sum += v; return nil }); err != nil || sum != 12 {
		t.Fatalf("complete run: %v, sum %d", err, sum)
	}
}

func TestEpochsBreak(t *testing.T) {
	p := pipeline.From(endless()).Buffered(2)
	epochs := 0
	for e, pass := range p.Epochs(context.Background(), -1) {
		for v := range pass {
			if v == 5 {
				break
			}
		}
		if epochs = e + 1; epochs == 3 {
			break
		}
	}
	if epochs != 3 || p.Stats()[0].Passes != 3 {
		t.Fatalf("%d epochs, %d passes", epochs, p.Stats()[0].Passes)
	}
}
