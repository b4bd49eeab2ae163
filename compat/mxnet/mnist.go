package mxnet

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Params are an iterator's parameters by MXNet's names, as Python's
// keyword arguments give them: mxnet.Params{"batch_size": 100,
// "shuffle": false}. A value is an int, a bool, a string, or the string
// form MXNet's C API passes ("100", "False", "1").
type Params map[string]any

// mnistDefaults are MNISTIter's parameters and their defaults
// (src/io/iter_mnist.cc's MNISTParam, and the prefetcher's
// prefetch_buffer).
var mnistDefaults = Params{
	"image":           "./train-images-idx3-ubyte",
	"label":           "./train-labels-idx1-ubyte",
	"batch_size":      128,
	"shuffle":         true,
	"flat":            false,
	"seed":            0,
	"silent":          false,
	"num_parts":       1,
	"part_index":      0,
	"prefetch_buffer": 4,
}

// MNISTIter returns MXNet's MNISTIter over the IDX files of p's "image"
// and "label" (either gzipped, either a local path or an s3:// or
// http(s):// URL, as package mnist reads them): a feed of batches with the
// tensors "data", float32 [batch_size 1 28 28] ([batch_size 784] with
// flat) holding the pixels scaled by 1/256 as MXNet scales them, and
// "softmax_label", the float32 digits [batch_size].
//
// Its parameters and defaults are MXNet's: batch_size (128), shuffle
// (true), flat (false), seed (0), silent (false; nothing is printed
// either way), num_parts (1) and part_index (0), and prefetch_buffer (4,
// the batches assembled ahead; 0 for none). As MXNet's does, it
//
//   - reads the files when it is made (an error then names the file and
//     where), and keeps the decoded set in memory;
//   - reads only part part_index of num_parts, the contiguous records
//     [ceil(n·i/k), ceil(n·(i+1)/k)) of the files' n;
//   - with shuffle, shuffles the part once, with seed, and repeats that
//     order every epoch (the order is tensorfeed's permutation for the
//     seed, not the one of MXNet's random engine);
//   - gives whole batches only: the samples of an epoch after its last
//     whole batch are dropped. MNISTIter has no round_batch parameter
//     (ImageRecordIter's round_batch belongs to its batch loader).
//
// Beyond MXNet, the feed resumes exactly and directly, by index, from the
// pipeline's Checkpoint, and a checkpoint is refused over other files,
// another part or another seed.
func MNISTIter(ctx context.Context, p Params) (*pipeline.Pipe[*tensor.Batch], error) {
	a, err := parse("MNISTIter", p, mnistDefaults)
	if err != nil {
		return nil, err
	}
	image, label := a.str("image"), a.str("label")
	bs, shuffle, flat, seed := a.int("batch_size"), a.bool("shuffle"), a.bool("flat"), a.int("seed")
	parts, part, prefetch := a.int("num_parts"), a.int("part_index"), a.int("prefetch_buffer")
	a.bool("silent")
	switch {
	case a.err != nil:
		return nil, a.err
	case bs < 1:
		return nil, fmt.Errorf("mxnet: MNISTIter: batch_size %d: must be at least 1", bs)
	case parts < 1 || part < 0 || part >= parts:
		return nil, fmt.Errorf("mxnet: MNISTIter: part_index %d of num_parts %d: need num_parts >= 1 and 0 <= part_index < num_parts", part, parts)
	case seed < 0:
		return nil, fmt.Errorf("mxnet: MNISTIter: seed %d: must not be negative", seed)
	case prefetch < 0:
		return nil, fmt.Errorf("mxnet: MNISTIter: prefetch_buffer %d: must not be negative", prefetch)
	}
	tab, err := mnist.New(image, label).Load(ctx)
	if err != nil {
		return nil, err
	}
	v := newPartView(tab, parts, part, shuffle, uint64(seed))
	if flat {
		return mnistFeed(v, bs, prefetch, func(s mnist.Sample) (flatDigit, error) {
			return flatDigit{Data: s.Image, Label: float32(s.Label)}, nil
		}), nil
	}
	return mnistFeed(v, bs, prefetch, func(s mnist.Sample) (imageDigit, error) {
		// The same 784 bytes, seen as one channel of 28 rows of 28.
		return imageDigit{Data: (*[1][mnist.Rows][mnist.Cols]uint8)(unsafe.Pointer(s.Image)), Label: float32(s.Label)}, nil
	}), nil
}

// imageDigit and flatDigit are MNISTIter's samples, whose tags are its
// tensors. The label is a float32 field: sink.Of would scale a uint8 read
// as float32 to [0, 1], as it does pixels.
type imageDigit struct {
	Data  *[1][mnist.Rows][mnist.Cols]uint8 `tensor:"data,float32"`
	Label float32                           `tensor:"softmax_label,label"`
}

type flatDigit struct {
	Data  *[mnist.Pixels]uint8 `tensor:"data,float32"`
	Label float32              `tensor:"softmax_label,label"`
}

// mnistFeed reads v in its order, converts each sample and batches them as
// MNISTIter does.
func mnistFeed[T any](v *partView, bs, prefetch int, conv func(mnist.Sample) (T, error)) *pipeline.Pipe[*tensor.Batch] {
	samples := pipeline.From(source.ReadIndexed(source.MapIndexed[mnist.Sample, T](v, conv))).Named("mnist")
	// MXNet divides each byte by 256: 255 becomes 255/256.
	feed := pipeline.Tensorize(samples, sink.Of[T](bs, sink.Scale("data", 0, 255.0/256)), batch.Drop)
	if prefetch > 0 {
		feed = feed.Buffered(prefetch)
	}
	return feed
}

// partView is part part of parts of a table, in the order drawn once from
// seed when it shuffles: MNISTIter's samples.
type partView struct {
	tab         *mnist.Table
	start, n    int
	perm        []int // nil: the files' order
	parts, part int
	shuffle     bool
	seed        uint64
}

func newPartView(tab *mnist.Table, parts, part int, shuffle bool, seed uint64) *partView {
	n := tab.Len()
	start, end := ceilDiv(n*part, parts), ceilDiv(n*(part+1), parts)
	v := &partView{tab: tab, start: start, n: end - start, parts: parts, part: part, shuffle: shuffle, seed: seed}
	if shuffle {
		v.perm = source.NewRand(seed, 0, -1).Perm(v.n)
	}
	return v
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func (v *partView) Len() int { return v.n }

func (v *partView) Get(i int) (mnist.Sample, error) {
	if uint(i) >= uint(v.n) {
		return mnist.Sample{}, source.IndexError(i, v.n)
	}
	if v.perm != nil {
		i = v.perm[i]
	}
	return v.tab.Get(v.start + i)
}

// Identity is the table's, with the part and the order, which change the
// stream without changing its length: a checkpoint of one part or seed is
// refused by another.
func (v *partView) Identity(ctx context.Context) (string, error) {
	id, err := v.tab.Identity(ctx)
	if err != nil || id == "" {
		return id, err
	}
	order := "in order"
	if v.shuffle {
		order = fmt.Sprintf("shuffled once with seed %d", v.seed)
	}
	return fmt.Sprintf("%s (MNISTIter part %d of %d, %s)", id, v.part, v.parts, order), nil
}

// args reads parameters by name, with defaults, keeping the first error.
type args struct {
	iter string
	p    Params
	err  error
}

// parse checks that every parameter of p is one of defaults' and returns
// p over defaults.
func parse(iter string, p Params, defaults Params) (*args, error) {
	all := maps.Clone(defaults)
	for k, v := range p {
		if _, ok := defaults[k]; !ok {
			return nil, fmt.Errorf("mxnet: %s: cannot find argument %q; its arguments are %s", iter, k, strings.Join(slices.Sorted(maps.Keys(defaults)), ", "))
		}
		all[k] = v
	}
	return &args{iter: iter, p: all}, nil
}

func (a *args) fail(k string, v any, want string) {
	if a.err == nil {
		a.err = fmt.Errorf("mxnet: %s: %s=%v (%T): not %s", a.iter, k, v, v, want)
	}
}

func (a *args) str(k string) string {
	if s, ok := a.p[k].(string); ok {
		return s
	}
	a.fail(k, a.p[k], "a string")
	return ""
}

func (a *args) int(k string) int {
	switch v := a.p[k].(type) {
	case int:
		return v
	case int64:
		if int64(int(v)) == v {
			return int(v)
		}
	case uint64:
		if v <= math.MaxInt {
			return int(v)
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n
		}
	}
	a.fail(k, a.p[k], "an integer")
	return 0
}

func (a *args) bool(k string) bool {
	switch v := a.p[k].(type) {
	case bool:
		return v
	case int:
		if v == 0 || v == 1 {
			return v == 1
		}
	case string:
		switch strings.TrimSpace(v) {
		case "True", "true", "1":
			return true
		case "False", "false", "0":
			return false
		}
	}
	a.fail(k, a.p[k], "a boolean (true, false, True, False, 1 or 0)")
	return false
}
