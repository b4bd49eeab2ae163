package mnist_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// TestMNISTIterShuffleOnceRepeatsOrderAfterReset is MXNet's MNISTIter
// shuffle: the samples are shuffled once, and every reset (a new pass)
// repeats that order, where Shuffle draws a new one each epoch.
func TestMNISTIterShuffleOnceRepeatsOrderAfterReset(t *testing.T) {
	dir := plainT10k(t)
	ds := mnist.Test(dir, mnist.ShuffleOnce(42))
	e0 := collect(t, ds)
	e1 := collect(t, ds)
	e5 := collect(t, epoch(ds, 5))
	if !slices.Equal(e0, e1) || !slices.Equal(e0, e5) {
		t.Error("ShuffleOnce: epochs differ in order")
	}
	plain := collect(t, mnist.Test(dir))
	if len(e0) != len(plain) {
		t.Fatalf("%d samples, want %d", len(e0), len(plain))
	}
	seen := make([]bool, len(plain))
	inOrder := 0
	for i, s := range e0 {
		if seen[s.Index] || s != plain[s.Index] {
			t.Fatalf("sample %d repeated or changed", s.Index)
		}
		seen[s.Index] = true
		if s.Index == i {
			inOrder++
		}
	}
	if inOrder > 50 {
		t.Errorf("%d samples kept their place", inOrder)
	}
	// The once-drawn order is Shuffle's first epoch; Shuffle's next epoch
	// differs, and so does another seed.
	per := mnist.Test(dir, mnist.Shuffle(42))
	if !slices.Equal(e0, collect(t, per)) {
		t.Error("ShuffleOnce(42) is not Shuffle(42)'s first epoch")
	}
	if slices.Equal(e0, collect(t, per)) {
		t.Error("Shuffle(42) repeats its order")
	}
	if slices.Equal(e0, collect(t, mnist.Test(dir, mnist.ShuffleOnce(43)))) {
		t.Error("seeds 42 and 43 give the same order")
	}
	// The last of Shuffle, ShuffleOnce and NoShuffle wins.
	if !slices.Equal(plain, collect(t, mnist.Test(dir, mnist.ShuffleOnce(42), mnist.NoShuffle()))) {
		t.Error("NoShuffle after ShuffleOnce is not the files' order")
	}
	over := mnist.Test(dir, mnist.ShuffleOnce(42), mnist.Shuffle(42))
	if collect(t, over); slices.Equal(e0, collect(t, over)) {
		t.Error("Shuffle after ShuffleOnce repeats the order")
	}
	// Shards shuffle once too, within the shard.
	sh := mnist.Test(dir, mnist.Shard(4, 3), mnist.ShuffleOnce(1))
	a, b := collect(t, sh), collect(t, sh)
	if !slices.Equal(a, b) || len(a) != 2500 || slices.ContainsFunc(a, func(s mnist.Sample) bool { return s.Index < 7500 }) {
		t.Error("a shard under ShuffleOnce: orders differ or samples outside the shard")
	}
	if err := sourcetest.TestReader(ds); err != nil {
		t.Error(err)
	}
}

// TestMNISTIterDefaults checks MXNet's MNISTIter defaults: shuffle on
// (seed 0, once), x/256 scaling, batches of 128 with the rest of an epoch
// dropped, the same batches every epoch.
func TestMNISTIterDefaults(t *testing.T) {
	dir := plainT10k(t)
	images, labels := dir+"/t10k-images-idx3-ubyte", dir+"/t10k-labels-idx1-ubyte"
	ds := mnist.MNISTIter(images, labels)
	if !slices.Equal(collect(t, ds), collect(t, mnist.New(images, labels, mnist.ShuffleOnce(0)))) {
		t.Error("MNISTIter's order is not ShuffleOnce(0)'s")
	}
	s := ds.Sink(mnist.MXNetBatchSize)
	if d, l := s.ProvideData()[0].String(), s.ProvideLabel()[0].String(); d != "data float32[128 1 28 28]" || l != "softmax_label float32[128]" {
		t.Errorf("descs %s %s", d, l)
	}
	firstLabels := func() []float32 {
		var out []float32
		n := 0
		for b, err := range sink.Tensorize(ds, s, batch.Drop).All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			d, _ := b.Get("data")
			if b.Len() != 128 || b.Padded != 0 || slices.Max(d.F32) > 255.0/256 {
				t.Fatalf("batch %d: %d samples, %d padded, max %v", n, b.Len(), b.Padded, slices.Max(d.F32))
			}
			if n == 0 {
				l, _ := b.Get("softmax_label")
				out = slices.Clone(l.F32)
			}
			n++
			b.Release()
		}
		if n != 10000/128 {
			t.Errorf("%d batches, want %d", n, 10000/128)
		}
		return out
	}
	if a, b := firstLabels(), firstLabels(); !slices.Equal(a, b) {
		t.Error("MNISTIter's first batch differs between epochs")
	}
	// Options after the defaults override them: shuffle=False, flat=True.
	plain := mnist.MNISTIter(images, labels, mnist.NoShuffle(), mnist.Flat())
	got, err := source.Collect(context.Background(), plain)
	if err != nil || !slices.Equal(got, collect(t, mnist.New(images, labels))) || !slices.Equal(plain.ImageShape(), []int{784}) {
		t.Errorf("MNISTIter with NoShuffle and Flat: %v", err)
	}
}
