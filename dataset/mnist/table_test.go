package mnist_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestTable(t *testing.T) {
	ctx := context.Background()
	stream := collect(t, mnist.Test(dataDir))
	tab, err := mnist.Test(dataDir, mnist.Shuffle(3)).Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 10000 {
		t.Fatalf("Len = %d", tab.Len())
	}
	for i, want := range stream {
		got, err := tab.Get(i)
		if err != nil || got != want {
			t.Fatalf("Get(%d): index %d label %d, %v; the file's sample %d has label %d", i, got.Index, got.Label, err, want.Index, want.Label)
		}
	}
	for _, i := range []int{-1, 10000} {
		if _, err := tab.Get(i); !errors.Is(err, source.ErrIndex) {
			t.Fatalf("Get(%d): %v", i, err)
		}
	}
	for _, opts := range [][]source.IndexedOption{nil, {source.ShuffleIndex(4)}} {
		if err := sourcetest.TestReader(source.ReadIndexed(tab, opts...)); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = tab.Get(5) }); a != 0 {
		t.Fatalf("Get allocates %v times", a)
	}
}

func TestTableShardAndMissing(t *testing.T) {
	ctx := context.Background()
	tab, err := mnist.Test(dataDir, mnist.Shard(4, 1)).Load(ctx)
	if err != nil || tab.Len() != 2500 {
		t.Fatalf("a quarter of t10k: %v", err)
	}
	if s, _ := tab.Get(0); s.Index != 2500 {
		t.Fatalf("shard 1's first sample has index %d", s.Index)
	}
	if _, err := mnist.Test(t.TempDir()).Load(ctx); err == nil {
		t.Fatal("Load of a folder without MNIST files gave no error")
	}
}

// The training set decoded once, then read in a new order each epoch; a
// run stopped at position 1000 of epoch 2 resumes exactly there.
func ExampleDataset_Load() {
	tab, err := mnist.Train("../../data/mnist").Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	r := source.ReadIndexed(tab, source.ShuffleIndex(1))
	ctx := source.WithEpoch(context.Background(), 2)
	for s, err := range r.From(1000).All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(tab.Len(), "samples; position 1000 of epoch 2 is sample", s.Index, "a", s.Label)
		break
	}
	// Output: 60000 samples; position 1000 of epoch 2 is sample 38298 a 5
}
