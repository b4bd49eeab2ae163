package mxnet

import (
	"context"
	"fmt"
	"slices"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// ndarrayDefaults are NDArrayIter's parameters and their defaults
// (python/mxnet/io/io.py), and seed, tensorfeed's.
var ndarrayDefaults = Params{
	"data":              nil,
	"label":             nil,
	"batch_size":        1,
	"shuffle":           false,
	"last_batch_handle": "pad",
	"data_name":         "data",
	"label_name":        "softmax_label",
	"seed":              0,
}

// NDArrayIter returns MXNet's NDArrayIter over arrays in memory: p's
// "data" and "label" are each a tensor.Tensor, or a []tensor.Tensor of
// several named ones, whose first dimension is the sample (float32, int32,
// int64 or uint8; the arrays are read, not copied, so they must not change
// while the feed runs). A tensor without a name is called data_name
// ("data") or label_name ("softmax_label"). Each batch holds batch_size
// (1) rows of every array, under the arrays' names and element types.
//
// shuffle (false) draws a new order every epoch, from seed (0; a
// parameter MXNet takes from its global random state). last_batch_handle
// says what becomes of a short last batch: "pad" (the default) fills it
// with the first samples of the epoch and counts them in tensor.Batch's
// Padded, "discard" drops it, and "roll_over" carries its samples into the
// first batch of the next epoch. The feed resumes exactly, by index, from
// the pipeline's Checkpoint.
func NDArrayIter(ctx context.Context, p Params) (*pipeline.Pipe[*tensor.Batch], error) {
	a, err := parse("NDArrayIter", p, ndarrayDefaults)
	if err != nil {
		return nil, err
	}
	bs, shuffle, seed, handle := a.int("batch_size"), a.bool("shuffle"), a.int("seed"), a.str("last_batch_handle")
	data, label := a.arrays("data", a.str("data_name")), a.arrays("label", a.str("label_name"))
	policy, ok := map[string]batch.Policy{"pad": batch.Pad, "discard": batch.Drop, "roll_over": batch.RollOver}[handle]
	switch {
	case a.err != nil:
		return nil, a.err
	case len(data) == 0:
		return nil, fmt.Errorf("mxnet: NDArrayIter: data: no array")
	case bs < 1:
		return nil, fmt.Errorf("mxnet: NDArrayIter: batch_size %d: must be at least 1", bs)
	case seed < 0:
		return nil, fmt.Errorf("mxnet: NDArrayIter: seed %d: must not be negative", seed)
	case !ok:
		return nil, fmt.Errorf("mxnet: NDArrayIter: last_batch_handle %q: not pad, discard or roll_over", handle)
	}
	n := data[0].Shape[0]
	names := map[string]bool{}
	var fields [2][]sink.Field[int]
	for k, arrays := range [][]tensor.Tensor{data, label} {
		for _, t := range arrays {
			if t.Shape[0] != n {
				return nil, fmt.Errorf("mxnet: NDArrayIter: %q has %d samples, %q has %d", t.Name, t.Shape[0], data[0].Name, n)
			}
			if names[t.Name] {
				return nil, fmt.Errorf("mxnet: NDArrayIter: two arrays are called %q", t.Name)
			}
			names[t.Name] = true
			f, err := rowField(t)
			if err != nil {
				return nil, err
			}
			fields[k] = append(fields[k], f)
		}
	}
	var opts []source.IndexedOption
	if shuffle {
		opts = append(opts, source.ShuffleIndex(uint64(seed)))
	}
	rows := pipeline.From(source.ReadIndexed(rowNumbers(n), opts...)).Named("ndarray")
	return pipeline.Tensorize(rows, sink.New(bs, fields[0], fields[1]), policy), nil
}

// rowNumbers is the random-access set of the numbers 0..n-1: the rows of
// the arrays, which the sink's fields copy.
type rowNumbers int

func (r rowNumbers) Len() int { return int(r) }

func (r rowNumbers) Get(i int) (int, error) {
	if uint(i) >= uint(r) {
		return 0, source.IndexError(i, int(r))
	}
	return i, nil
}

// arrays reads parameter k: a tensor.Tensor or a []tensor.Tensor (nil:
// none), naming a nameless one def and checking each one's shape and
// length.
func (a *args) arrays(k, def string) []tensor.Tensor {
	var ts []tensor.Tensor
	switch v := a.p[k].(type) {
	case nil:
		return nil
	case tensor.Tensor:
		ts = []tensor.Tensor{v}
	case []tensor.Tensor:
		ts = slices.Clone(v)
	default:
		a.fail(k, v, "a tensor.Tensor or a []tensor.Tensor")
		return nil
	}
	for i := range ts {
		t := &ts[i]
		if t.Name == "" {
			t.Name = def
			if len(ts) > 1 {
				t.Name = fmt.Sprintf("%s%d", def, i)
			}
		}
		if len(t.Shape) == 0 || t.Shape[0] < 0 || slices.ContainsFunc(t.Shape, func(d int) bool { return d < 0 }) {
			a.fail(k, t.Shape, fmt.Sprintf("the shape of %q: it needs a sample dimension first and no negative dimension", t.Name))
			continue
		}
		if want, got := sample.Elems(t.Shape), tensorElems(*t); got != want {
			a.fail(k, t.Name, fmt.Sprintf("a %v array of shape %v: it holds %d %v values where the shape needs %d", t.DType, t.Shape, got, t.DType, want))
		}
	}
	return ts
}

// tensorElems returns the length of t's slice of its element type.
func tensorElems(t tensor.Tensor) int {
	switch t.DType {
	case sample.Float32:
		return len(t.F32)
	case sample.Int32:
		return len(t.I32)
	case sample.Int64:
		return len(t.I64)
	case sample.Uint8:
		return len(t.U8)
	case sample.Int8:
		return len(t.I8)
	}
	return -1
}

// rowField returns the sink field that copies row i of t.
func rowField(t tensor.Tensor) (sink.Field[int], error) {
	shape, e := t.Shape[1:], sample.Elems(t.Shape[1:])
	switch t.DType {
	case sample.Float32:
		return sink.Slice(t.Name, shape, row(t.F32, e)), nil
	case sample.Int32:
		return sink.Slice(t.Name, shape, row(t.I32, e)), nil
	case sample.Int64:
		return sink.Slice(t.Name, shape, row(t.I64, e)), nil
	case sample.Uint8:
		return sink.Slice(t.Name, shape, row(t.U8, e)), nil
	}
	return sink.Field[int]{}, fmt.Errorf("mxnet: NDArrayIter: %q is %v: the element type is not float32, int32, int64 or uint8", t.Name, t.DType)
}

// row returns the getter of row i of data, e elements a row.
func row[E sink.Elem](data []E, e int) func(int) []E {
	return func(i int) []E { return data[i*e : (i+1)*e : (i+1)*e] }
}
