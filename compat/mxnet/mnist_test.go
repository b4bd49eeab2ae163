package mxnet_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Buffered starts goroutines; every test must leave none behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	t10kImages = "../../data/mnist/t10k-images-idx3-ubyte.gz"
	t10kLabels = "../../data/mnist/t10k-labels-idx1-ubyte.gz"
)

// t10k returns MNISTIter's parameters for the test set, with more.
func t10k(more mxnet.Params) mxnet.Params {
	p := mxnet.Params{"image": t10kImages, "label": t10kLabels}
	for k, v := range more {
		p[k] = v
	}
	return p
}

func newIter(t *testing.T, p mxnet.Params) *pipeline.Pipe[*tensor.Batch] {
	t.Helper()
	feed, err := mxnet.MNISTIter(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return feed
}

// epoch is what one epoch of a feed gave: its batches' shapes, labels and
// pixel range.
type epoch struct {
	batches      int
	dataShape    []int
	labelShape   []int
	labels       []float32 // every label, in order
	padded       int
	minPix, maxP float32
}

func readEpoch(t *testing.T, feed *pipeline.Pipe[*tensor.Batch], e int) epoch {
	t.Helper()
	ctx := source.WithEpoch(context.Background(), e)
	got := epoch{minPix: 1e9, maxP: -1e9}
	for b, err := range feed.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		d, ok := b.Get("data")
		l, ok2 := b.Get("softmax_label")
		if !ok || !ok2 || d.DType.String() != "float32" || l.DType.String() != "float32" {
			t.Fatalf("batch %d: tensors %v %v", got.batches, b.Data, b.Label)
		}
		got.dataShape, got.labelShape = d.Shape, l.Shape
		got.labels = append(got.labels, l.F32...)
		got.padded += b.Padded
		got.minPix, got.maxP = min(got.minPix, slices.Min(d.F32)), max(got.maxP, slices.Max(d.F32))
		got.batches++
		b.Release()
	}
	return got
}

// TestMNISTIterDefaults checks MXNet's MNISTIter defaults: shuffle on
// (seed 0, once: every epoch the same order), x/256 scaling, batches of
// 128 of 1x28x28 images, the rest of an epoch dropped.
func TestMNISTIterDefaults(t *testing.T) {
	feed := newIter(t, t10k(nil))
	e0, e1, e5 := readEpoch(t, feed, 0), readEpoch(t, feed, 1), readEpoch(t, feed, 5)
	if e0.batches != 10000/128 || e0.padded != 0 || len(e0.labels) != 10000/128*128 {
		t.Errorf("%d batches, %d padded, %d samples; want %d whole batches", e0.batches, e0.padded, len(e0.labels), 10000/128)
	}
	if !slices.Equal(e0.dataShape, []int{128, 1, 28, 28}) || !slices.Equal(e0.labelShape, []int{128}) {
		t.Errorf("shapes %v %v", e0.dataShape, e0.labelShape)
	}
	if e0.minPix != 0 || e0.maxP != 255.0/256 {
		t.Errorf("pixels in [%v, %v], want [0, 255/256]", e0.minPix, e0.maxP)
	}
	if !slices.Equal(e0.labels, e1.labels) || !slices.Equal(e0.labels, e5.labels) {
		t.Error("shuffle: epochs differ in order (MNISTIter shuffles once)")
	}
	plain := readEpoch(t, newIter(t, t10k(mxnet.Params{"shuffle": false})), 0)
	if slices.Equal(e0.labels, plain.labels) {
		t.Error("shuffle=True gives the files' order")
	}
	if !slices.Equal(plain.labels[:5], []float32{7, 2, 1, 0, 4}) {
		t.Errorf("shuffle=False: first labels %v, want the files' 7 2 1 0 4", plain.labels[:5])
	}
	other := readEpoch(t, newIter(t, t10k(mxnet.Params{"seed": 1})), 0)
	if slices.Equal(e0.labels, other.labels) {
		t.Error("seeds 0 and 1 give the same order")
	}
	// The same samples in another order: the label counts agree over the
	// whole set (batch_size 1 drops nothing).
	count := func(p mxnet.Params) map[float32]int {
		m := map[float32]int{}
		for _, l := range readEpoch(t, newIter(t, t10k(p)), 0).labels {
			m[l]++
		}
		return m
	}
	a, b := count(mxnet.Params{"batch_size": 1}), count(mxnet.Params{"batch_size": 1, "shuffle": "False"})
	if len(a) != 10 || a[1] != 1135 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("label counts %v and %v", a, b)
	}
}

// TestMNISTIterFlatAndStrings: flat=True gives [batch 784]; values may be
// the strings MXNet's C API passes.
func TestMNISTIterFlatAndStrings(t *testing.T) {
	e := readEpoch(t, newIter(t, t10k(mxnet.Params{"flat": "True", "batch_size": "100", "shuffle": "0", "prefetch_buffer": 0})), 0)
	if e.batches != 100 || !slices.Equal(e.dataShape, []int{100, 784}) || !slices.Equal(e.labels[:3], []float32{7, 2, 1}) {
		t.Errorf("flat: %d batches of %v, first labels %v", e.batches, e.dataShape, e.labels[:3])
	}
}

// TestMNISTIterParts: num_parts and part_index read contiguous parts,
// MXNet's, which cover the files once; a part shuffles within itself.
func TestMNISTIterParts(t *testing.T) {
	all := readEpoch(t, newIter(t, t10k(mxnet.Params{"batch_size": 1, "shuffle": false})), 0).labels
	var joined []float32
	for i := range 3 {
		p := readEpoch(t, newIter(t, t10k(mxnet.Params{"batch_size": 1, "shuffle": false, "num_parts": 3, "part_index": i})), 0)
		joined = append(joined, p.labels...)
	}
	if !slices.Equal(joined, all) {
		t.Errorf("3 parts: %d labels, not the files' %d in order", len(joined), len(all))
	}
	a := readEpoch(t, newIter(t, t10k(mxnet.Params{"batch_size": 1, "num_parts": 4, "part_index": 3})), 0).labels
	b := readEpoch(t, newIter(t, t10k(mxnet.Params{"batch_size": 1, "num_parts": 4, "part_index": 3})), 1).labels
	want := slices.Clone(all[7500:])
	got := slices.Clone(a)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(a, b) || len(a) != 2500 || !slices.Equal(got, want) || slices.Equal(a, all[7500:]) {
		t.Error("part 3 of 4, shuffled: orders differ between epochs, or samples outside the part, or not shuffled")
	}
}

// TestMNISTIterResume: the feed resumes directly from a checkpoint, and a
// checkpoint is refused by another seed or part.
func TestMNISTIterResume(t *testing.T) {
	ctx := context.Background()
	params := t10k(mxnet.Params{"batch_size": 100})
	straight := readEpoch(t, newIter(t, params), 0).labels
	feed := newIter(t, params)
	var head []float32
	var cp *pipeline.Checkpoint
	for _, pass := range feed.Epochs(ctx, 1) {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			l, _ := b.Get("softmax_label")
			head = append(head, l.F32...)
			b.Release()
			if len(head) == 3000 {
				if cp, err = feed.Checkpoint(ctx); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	if st := fmt.Sprint(cp.State); strings.Contains(st, "replay") || !strings.Contains(st, "3000") {
		t.Errorf("state %s: want the position 3000 of a reader by index", st)
	}
	resumed := newIter(t, params)
	runs, err := resumed.EpochsFrom(ctx, cp, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, pass := range runs {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			l, _ := b.Get("softmax_label")
			head = append(head, l.F32...)
			b.Release()
		}
	}
	if !slices.Equal(head, straight) {
		t.Errorf("resumed run: %d labels, not the straight run's %d", len(head), len(straight))
	}
	for _, other := range []mxnet.Params{{"seed": 3}, {"num_parts": 2, "part_index": 1}} {
		p := t10k(mxnet.Params{"batch_size": 100})
		for k, v := range other {
			p[k] = v
		}
		if _, err := newIter(t, p).EpochsFrom(ctx, cp, 1); !errors.Is(err, pipeline.ErrCheckpoint) {
			t.Errorf("%v: resumed a checkpoint of seed 0, part 0 of 1: %v", other, err)
		}
	}
}

func TestMNISTIterErrors(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		p    mxnet.Params
		want string
	}{
		{t10k(mxnet.Params{"round_batch": true}), `cannot find argument "round_batch"`},
		{t10k(mxnet.Params{"batch_size": 0}), "batch_size 0"},
		{t10k(mxnet.Params{"batch_size": "many"}), "not an integer"},
		{t10k(mxnet.Params{"shuffle": "yes"}), "not a boolean"},
		{t10k(mxnet.Params{"num_parts": 2, "part_index": 2}), "part_index 2 of num_parts 2"},
		{t10k(mxnet.Params{"seed": -1}), "seed -1"},
		{t10k(mxnet.Params{"image": 3}), "not a string"},
		{mxnet.Params{"image": t10kLabels, "label": t10kLabels}, "is not MNIST images"},
		{mxnet.Params{}, "train-images-idx3-ubyte"},
	} {
		if _, err := mxnet.MNISTIter(ctx, tt.p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.p, err, tt.want)
		}
	}
}
