package tfgomlx_test

import (
	"context"
	"fmt"

	"github.com/gomlx/gomlx/backends"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/gomlx/tfgomlx"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// A tensorfeed feed trained on by GoMLX's own loop: the MNIST training set
// in memory, shuffled by index every epoch, assembled ahead of the loop.
// The model (linear here), loss and optimizer are GoMLX's; see
// examples/mnist for a whole program, with checkpoints of model and feed
// saved and resumed together.
func ExampleNew() {
	ctx := context.Background()
	table, err := mnist.Train("data/mnist").Load(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	tensors := labelSink(100) // image float32[100 784], label int32[100 1]
	feed := pipeline.Tensorize(pipeline.From[mnist.Sample](source.ReadIndexed(table, source.ShuffleIndex(42))),
		tensors, batch.Drop).Buffered(4)
	ds, err := tfgomlx.New(ctx, feed, tensors.ProvideData(), tensors.ProvideLabel(), tfgomlx.Endless())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ds.Close()

	backend := backends.MustNew() // the pure-Go backend, imported as backends/simplego
	defer backend.Finalize()
	trainer := train.NewTrainer(backend, mlctx.New(), linear, losses.SparseCategoricalCrossEntropyLogits,
		optimizers.Adam().Done(), nil, nil)
	if _, err := train.NewLoop(trainer).RunSteps(ds, 2400); err != nil {
		fmt.Println(err) // a bad file names itself and the record, through GoMLX's wrapping
	}
	fmt.Println(feed.Stats().Report()) // how long GoMLX waited for data
}
