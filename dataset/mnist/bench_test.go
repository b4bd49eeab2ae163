package mnist_test

import (
	"context"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/mnist"
)

// benchEpoch reads one pass of ds per iteration and reports samples/s,
// ns/sample and MB/s of uncompressed IDX data (785 bytes per sample).
func benchEpoch(b *testing.B, ds *mnist.Dataset, n int) {
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

// BenchmarkTrainEpochGzipShuffled is the same with a full shuffle.
func BenchmarkTrainEpochGzipShuffled(b *testing.B) {
	benchEpoch(b, mnist.Train(dataDir, mnist.Shuffle(1)), 60000)
}

// BenchmarkTrainEpochPlain reads the uncompressed training files.
func BenchmarkTrainEpochPlain(b *testing.B) {
	dir := b.TempDir()
	gunzipTo(b, dir, "train-images-idx3-ubyte")
	gunzipTo(b, dir, "train-labels-idx1-ubyte")
	benchEpoch(b, mnist.Train(dir), 60000)
}

// BenchmarkTrainEpochDecode reads the training set and converts every
// image to float32 (x/255), as a sink would.
func BenchmarkTrainEpochDecode(b *testing.B) {
	ds := mnist.Train(dataDir)
	dst := make([]float32, mnist.Pixels)
	b.ReportAllocs()
	b.SetBytes(60000 * (mnist.Pixels + 1))
	for b.Loop() {
		for s, err := range ds.All(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
			ds.FillImage(s, dst)
		}
	}
	total := 60000 * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/sample")
}

// BenchmarkFillImage converts one image to float32.
func BenchmarkFillImage(b *testing.B) {
	ds := mnist.Test(dataDir)
	var s mnist.Sample
	for i := range s.Image {
		s.Image[i] = uint8(i)
	}
	dst := make([]float32, mnist.Pixels)
	b.ReportAllocs()
	b.SetBytes(mnist.Pixels)
	for b.Loop() {
		ds.FillImage(s, dst)
	}
}

// BenchmarkReadIDX reads the whole t10k image file into memory.
func BenchmarkReadIDX(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(7840016)
	for b.Loop() {
		if _, err := mnist.ReadIDX(gz("t10k-images-idx3-ubyte")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrainEpochRefs reads shuffled epochs of the training set by
// reference: after the first, from the decoded-file cache.
func BenchmarkTrainEpochRefs(b *testing.B) {
	ds := mnist.Train(dataDir, mnist.Shuffle(1))
	b.ReportAllocs()
	b.SetBytes(60000 * (mnist.Pixels + 1))
	ctx := context.Background()
	sum := 0
	for b.Loop() {
		for r, err := range ds.Refs().All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			sum += int(r.Label)
		}
	}
	if sum == 0 {
		b.Fatal("no labels")
	}
	total := 60000 * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/sample")
}

// BenchmarkTrainEpochRefsFill is BenchmarkTrainEpochRefs with every image
// normalised to [-1, 1] float32, as a sink's field does.
func BenchmarkTrainEpochRefsFill(b *testing.B) {
	ds := mnist.Train(dataDir, mnist.Shuffle(1), mnist.Scaling(mnist.ScaleSymmetric))
	dst := make([]float32, mnist.Pixels)
	b.ReportAllocs()
	b.SetBytes(60000 * (mnist.Pixels + 1))
	for b.Loop() {
		for r, err := range ds.Refs().All(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
			ds.FillRefImage(r, dst)
		}
	}
	total := 60000 * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/sample")
}
