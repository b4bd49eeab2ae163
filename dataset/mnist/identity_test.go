package mnist_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// checkTableIdentity takes a checkpoint of a pipeline of batches of 4
// over source.ReadIndexed(tab(), source.ShuffleIndex(1)) after two
// batches of epoch 0, as a training loop does, and resumes it over a table
// opened again from the same file (accepted: the run goes on) and over
// other, a table of another file with as many samples (refused: the
// error names the data). kind names the table in failures.
func checkTableIdentity[T any](t *testing.T, kind string, tab, other func() source.Indexed[T]) {
	t.Helper()
	ctx := context.Background()
	build := func(d source.Indexed[T]) *pipeline.Pipe[batch.Batch[T]] {
		return pipeline.Batch(pipeline.From[T](source.ReadIndexed(d, source.ShuffleIndex(1))), 4, batch.Keep)
	}
	p := build(tab())
	for _, pass := range p.Epochs(ctx, 1) {
		k := 0
		for _, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			if k++; k == 2 {
				break
			}
		}
		break
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Data == "" {
		t.Fatalf("%s: the checkpoint holds no identity of the data", kind)
	}
	at, err := p.CheckpointAt(ctx, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for name, ck := range map[string]*pipeline.Checkpoint{kind + ": Checkpoint": ck, kind + ": CheckpointAt": at} {
		rest, err := build(tab()).EpochsFrom(ctx, ck, 2)
		if err != nil {
			t.Fatalf("%s: the same file: %v", name, err)
		}
		n := 0
		for _, pass := range rest {
			for _, err := range pass {
				if err != nil {
					t.Fatalf("%s: the same file: %v", name, err)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: the same file: no batch after the resume", name)
		}
		_, err = build(other()).EpochsFrom(ctx, ck, 2)
		t.Logf("%s: another file: %v", name, err)
		if !errors.Is(err, pipeline.ErrCheckpoint) || !strings.Contains(err.Error(), "data") {
			t.Errorf("%s: another file of as many samples: %v, want an error wrapping ErrCheckpoint that names the data", name, err)
		}
	}
}

// writeSet writes name-images and name-labels in dir: n images of 28x28
// pixels of the value tag and labels i%10, as long for every tag.
func writeSet(t *testing.T, dir, name string, n int, tag byte) (images, labels string) {
	t.Helper()
	img := binary.BigEndian.AppendUint32(nil, 0x803)
	img = binary.BigEndian.AppendUint32(img, uint32(n))
	img = binary.BigEndian.AppendUint32(img, 28)
	img = binary.BigEndian.AppendUint32(img, 28)
	img = append(img, strings.Repeat(string(tag), n*28*28)...)
	lab := binary.BigEndian.AppendUint32(nil, 0x801)
	lab = binary.BigEndian.AppendUint32(lab, uint32(n))
	for i := range n {
		lab = append(lab, byte(i%10))
	}
	return writeFile(t, dir, name+"-images", img), writeFile(t, dir, name+"-labels", lab)
}

// A Table is a source.Identifier: a checkpoint of a pass over a table of
// one pair of files does not resume over a table of other files with as
// many samples, nor over the other shard of the same files.
func TestTableIdentity(t *testing.T) {
	dir := t.TempDir()
	aImages, aLabels := writeSet(t, dir, "a", 40, 1)
	bImages, bLabels := writeSet(t, dir, "b", 40, 2)
	load := func(images, labels string, opts ...mnist.Option) func() source.Indexed[mnist.Sample] {
		return func() source.Indexed[mnist.Sample] {
			tab, err := mnist.New(images, labels, opts...).Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return tab
		}
	}
	checkTableIdentity(t, "table", load(aImages, aLabels), load(bImages, bLabels))
	checkTableIdentity(t, "shard", load(aImages, aLabels, mnist.Shard(2, 0)), load(aImages, aLabels, mnist.Shard(2, 1)))
	label := func(s mnist.Sample) (uint8, error) { return s.Label, nil }
	checkTableIdentity(t, "mapped",
		func() source.Indexed[uint8] { return source.MapIndexed(load(aImages, aLabels)(), label) },
		func() source.Indexed[uint8] { return source.MapIndexed(load(bImages, bLabels)(), label) })

	id, err := load(aImages, aLabels)().(source.Identifier).Identity(context.Background())
	if err != nil || !strings.Contains(id, "a-images (") || !strings.Contains(id, "a-labels (") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want a-images and a-labels by base name", id, err)
	}
}
