package tfgomlx_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"
	"github.com/gomlx/gomlx/pkg/ml/train/metrics"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/gomlx/tfgomlx"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

func labelSink(size int) *sink.Sink[mnist.Sample] {
	return sink.New(size,
		[]sink.Field[mnist.Sample]{sink.Float32("image", []int{mnist.Pixels}, fillImage)},
		[]sink.Field[mnist.Sample]{sink.Int32("label", []int{1}, fillLabel)})
}

func linear(ctx *mlctx.Context, _ any, inputs []*graph.Node) []*graph.Node {
	return []*graph.Node{layers.DenseWithBias(ctx.In("model"), inputs[0], 10)}
}

func newTrainer(t *testing.T) *train.Trainer {
	t.Helper()
	backend, err := backends.NewWithConfig("go:ops_sequential") // one op at a time: GoMLX's parallel ops race under go test -race
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(backend.Finalize)
	ctx := mlctx.New()
	ctx.SetParam(mlctx.ParamInitialSeed, int64(1))
	return train.NewTrainer(backend, ctx, linear, losses.SparseCategoricalCrossEntropyLogits,
		optimizers.Adam().LearningRate(1e-2).Done(), nil,
		[]metrics.Interface{metrics.NewSparseCategoricalAccuracy("accuracy", "#acc")})
}

// GoMLX's own loop trains on a Dataset: RunEpochs reads each epoch to its
// io.EOF and Resets; the graph is compiled for the one spec; Trainer.Eval
// reads a whole epoch of another Dataset, and learns something.
func TestGoMLXLoop(t *testing.T) {
	digits := testDigits(t, 600)
	s := labelSink(50)
	trainDS := newDataset(t, feedOf(digits[:500], s, batch.Drop, 11), s)
	trainer := newTrainer(t)
	loop := train.NewLoop(trainer)
	if _, err := loop.RunEpochs(trainDS, 3); err != nil {
		t.Fatal(err)
	}
	if loop.LoopStep != 30 || trainDS.Stats().Epochs != 3 || trainDS.Stats().Batches != 30 {
		t.Fatalf("loop step %d, dataset %+v; want 30 steps in 3 epochs", loop.LoopStep, trainDS.Stats())
	}
	eval := newDataset(t, feedOf(digits[500:], s, batch.Keep, 0), s)
	m, err := trainer.Eval(eval)
	if err != nil {
		t.Fatal(err)
	}
	acc := tensors.ToScalar[float32](m[len(m)-1])
	if acc < 0.5 {
		t.Fatalf("accuracy %v after 30 steps of a linear model on digits, want >= 0.5", acc)
	}
	t.Logf("accuracy %.3f on 100 held-out digits", acc)
	// A second evaluation reads the next epoch of the test feed: the same
	// digits, in order, so the same accuracy.
	m2, err := trainer.Eval(eval)
	if err != nil {
		t.Fatal(err)
	}
	if acc2 := tensors.ToScalar[float32](m2[len(m2)-1]); acc2 != acc {
		t.Fatalf("second evaluation %v, first %v", acc2, acc)
	}
}

// An error of the feed stops GoMLX's loop where it happens and reaches its
// caller with the tensorfeed error inside (errors.Is through GoMLX's
// wrapping): the batches before it are trained on, none after.
func TestGoMLXLoopError(t *testing.T) {
	digits := testDigits(t, 200)
	s := labelSink(50)
	bad := pipeline.MapErr(pipeline.From[mnist.Sample](source.ReadIndexed(source.IndexSlice(digits))), func(d mnist.Sample) (mnist.Sample, error) {
		if d.Index == 130 {
			return d, fmt.Errorf("digit %d: %w", d.Index, tensorfeed.ErrBadData)
		}
		return d, nil
	})
	ds := newDataset(t, pipeline.Tensorize(bad, s, batch.Keep).Buffered(2), s, tfgomlx.Endless())
	loop := train.NewLoop(newTrainer(t))
	_, err := loop.RunSteps(ds, 100)
	if !errors.Is(err, tensorfeed.ErrBadData) || !strings.Contains(err.Error(), "digit 130") {
		t.Fatalf("RunSteps: %v, want the error of digit 130, wrapping ErrBadData", err)
	}
	if loop.LoopStep != 2 {
		t.Fatalf("the loop stopped at step %d, want 2 (two full batches before digit 130)", loop.LoopStep)
	}
}

// A Dataset resumed from the checkpoint taken after k batches yields the
// batches that followed them in a straight run, across epochs.
func TestResumeFromCheckpoint(t *testing.T) {
	digits := testDigits(t, 250)
	s := labelSink(50)
	straight := newDataset(t, feedOf(digits, s, batch.Keep, 5), s, tfgomlx.Endless())
	var want []string
	for range 13 {
		_, in, lab, err := straight.Yield()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, digest(t, in, lab))
	}
	for _, k := range []int{0, 3, 5, 7} {
		first := newDataset(t, feedOf(digits, s, batch.Keep, 5), s, tfgomlx.Endless())
		var got []string
		for range k {
			_, in, lab, err := first.Yield()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, digest(t, in, lab))
		}
		ck, err := first.Checkpoint(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		first.Close()
		if e, st := first.Position(); ck.Epoch != e || ck.Step != st || int(ck.Epoch)*5+int(ck.Step) != k {
			t.Fatalf("k=%d: checkpoint at epoch %d step %d, position %d %d", k, ck.Epoch, ck.Step, e, st)
		}
		data, err := ck.Encode()
		if err != nil {
			t.Fatal(err)
		}
		ck2, err := pipeline.ParseCheckpoint(data)
		if err != nil {
			t.Fatal(err)
		}
		resumed := newDataset(t, feedOf(digits, s, batch.Keep, 5), s, tfgomlx.Endless(), tfgomlx.ResumeFrom(ck2))
		for range 13 - k {
			_, in, lab, err := resumed.Yield()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, digest(t, in, lab))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("stopped after %d batches and resumed:\n%v\nstraight:\n%v", k, got, want)
		}
	}
	// A checkpoint of another pipeline (another batch size) is refused.
	ck, err := straight.Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	other := labelSink(25)
	if _, err := tfgomlx.New(context.Background(), feedOf(digits, other, batch.Keep, 5), other.ProvideData(), other.ProvideLabel(),
		tfgomlx.ResumeFrom(ck)); !errors.Is(err, pipeline.ErrCheckpoint) {
		t.Fatalf("resuming another pipeline: %v, want ErrCheckpoint", err)
	}
}
