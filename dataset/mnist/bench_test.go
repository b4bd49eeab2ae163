package mnist_test

import (
	"context"
	"iter"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// benchEpoch reads one pass of ds per iteration and reports samples/s,
// ns/sample and MB/s of uncompressed IDX data (785 bytes per sample).
func benchEpoch(b *testing.B, ds source.Reader[mnist.Sample], n int) {
	b.ReportAllocs()
	b.SetBytes(int64(n) * (mnist.Pixels + 1))
	ctx := context.Background()
	sum := 0
	for b.Loop() {
		k := 0
		for s, err := range ds.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			sum += int(s.Label)
			k++
		}
		if k != n {
			b.Fatalf("%d samples, want %d", k, n)
		}
	}
	if sum == 0 {
		b.Fatal("no labels")
	}
	total := float64(n) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/sample")
}

// BenchmarkTrainEpochGzip reads the 60,000 training samples from the
// original .gz files: gunzip, parse and yield.
func BenchmarkTrainEpochGzip(b *testing.B) { benchEpoch(b, mnist.Train(dataDir), 60000) }

// BenchmarkTrainEpochLoad loads the training set (from the decoded-file
// cache after the first time) and reads it shuffled by index.
func BenchmarkTrainEpochLoad(b *testing.B) {
	ds := mnist.Train(dataDir)
	load := source.Func[mnist.Sample](func(ctx context.Context) iter.Seq2[mnist.Sample, error] {
		return func(yield func(mnist.Sample, error) bool) {
			tab, err := ds.Load(ctx)
			if err != nil {
				yield(mnist.Sample{}, err)
				return
			}
			for s, err := range source.ReadIndexed(tab, source.ShuffleIndex(1)).All(ctx) {
				if !yield(s, err) || err != nil {
					return
				}
			}
		}
	})
	benchEpoch(b, load, 60000)
}

// BenchmarkTrainEpochPlain reads the uncompressed training files.
func BenchmarkTrainEpochPlain(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte"} {
		fixture.WriteFile(b, dir, n, gunzipBytes(b, n))
	}
	benchEpoch(b, mnist.Train(dir), 60000)
}

// BenchmarkTrainEpochTensors reads shuffled epochs of the training set
// from its table into batches of 128 tensors, the pixels in [-1, 1].
func BenchmarkTrainEpochTensors(b *testing.B) {
	tab, err := mnist.Train(dataDir).Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	s := sink.Of[mnist.Sample](128, sink.Scale("image", -1, 1))
	feed := pipeline.Tensorize(pipeline.From(source.ReadIndexed(tab, source.ShuffleIndex(1))), s, batch.Keep)
	b.ReportAllocs()
	b.SetBytes(60000 * (mnist.Pixels + 1))
	for b.Loop() {
		for t, err := range feed.All(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
			t.Release()
		}
	}
	total := 60000 * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/sample")
}
