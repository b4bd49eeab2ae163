package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// mnistAutoRows measures the MNIST epoch with its sizes left to the
// pipeline: ReadIndexed(ShuffleIndex) -> Tensorize(128, Keep,
// Workers(Auto)) under Autotune(0, 0) (GOMAXPROCS cores), against the best
// plain loop with as many goroutines as the budget has cores. The note says what
// the steps chose by the end of the last timed epoch.
func mnistAutoRows(cfg config) ([]Row, error) {
	f, err := prepareMNIST(cfg)
	if err != nil {
		return nil, err
	}
	defer f.remove()
	outBytes := int64(f.n) * mnistOut
	floor, err := measureFloor(cfg.cheapReps(), outBytes, mnistBatch*mnistOut)
	if err != nil {
		return nil, err
	}
	cores := runtime.GOMAXPROCS(0)
	feed, err := mnistAutoFeed(f)
	if err != nil {
		return nil, err
	}
	data, err := loadMNIST(f)
	if err != nil {
		return nil, err
	}
	var got, want uint64
	rs, err := measureEach(cfg.cheapReps(),
		func() (err error) { got, err = mnistAutoEpoch(feed); return err },
		func() (err error) { want, err = mnistBest(data, cores); return err })
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, fmt.Errorf("mnist-epoch auto: pipeline and plain loop differ (checksums %x, %x)", got, want)
	}
	chosen := ""
	for _, s := range feed.Stats() {
		if s.Auto != "" {
			chosen += fmt.Sprintf("; %s %s", s.Name, s.Auto)
		}
	}
	row := newRow("mnist-epoch", cores, f.n, outBytes, rs[0], rs[1], floor)
	row.Variant = "auto"
	row.Note = fmt.Sprintf("Load(IDX) -> ReadIndexed(ShuffleIndex(seed)) -> Tensorize(sink.Of[mnist.Sample](128), Keep, Workers(Auto)), "+
		"Autotune(0, 0): %d cores; against the best plain loop with %d goroutines; chosen%s", cores, cores, chosen)
	return []Row{row}, nil
}

// mnistAutoFeed builds the Auto pipeline over the training table.
func mnistAutoFeed(f *mnistFiles) (*pipeline.Pipe[*tensor.Batch], error) {
	tab, err := mnist.New(f.images, f.labels).Load(context.Background())
	if err != nil {
		return nil, err
	}
	samples := pipeline.From(source.ReadIndexed(tab, source.ShuffleIndex(mnistSeed)), pipeline.Autotune(0, 0))
	return pipeline.Tensorize(samples, mnistSink(), batch.Keep, pipeline.Workers(pipeline.Auto)), nil
}

// mnistAutoEpoch runs epoch 0 of feed and returns the checksum of what the
// consumer saw.
func mnistAutoEpoch(feed *pipeline.Pipe[*tensor.Batch]) (uint64, error) {
	ctx := source.WithEpoch(context.Background(), 0)
	var sum uint64
	for t, err := range feed.All(ctx) {
		if err != nil {
			return 0, err
		}
		sum = consumeBatch(sum, t.Data[0].F32, t.Label[0].I32)
		t.Release()
	}
	return sum, nil
}
