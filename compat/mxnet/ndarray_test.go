package mxnet_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// xy returns n samples of 2 float32 features (10i, 10i+1) and int32 labels
// i, so every row says which sample it is.
func xy(n int) (x, y tensor.Tensor) {
	x = tensor.Tensor{Shape: []int{n, 2}, DType: sample.Float32}
	y = tensor.Tensor{Shape: []int{n}, DType: sample.Int32}
	for i := range n {
		x.F32 = append(x.F32, float32(10*i), float32(10*i+1))
		y.I32 = append(y.I32, int32(i))
	}
	return x, y
}

// epochs runs n epochs of feed and returns, per epoch, the sample of every
// row (the label) with the batches' Padded counts, checking that each
// data row belongs to its label.
func epochs(t *testing.T, feed *pipeline.Pipe[*tensor.Batch], n int) (rows [][]int32, padded [][]int) {
	t.Helper()
	for _, pass := range feed.Epochs(context.Background(), n) {
		var r []int32
		var p []int
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			d, _ := b.Get("data")
			l, _ := b.Get("softmax_label")
			if !slices.Equal(d.Shape, []int{b.Len(), 2}) || !slices.Equal(l.Shape, []int{b.Len()}) {
				t.Fatalf("shapes %v %v", d.Shape, l.Shape)
			}
			for k := range b.Len() {
				if d.F32[2*k] != float32(10*l.I32[k]) || d.F32[2*k+1] != float32(10*l.I32[k]+1) {
					t.Fatalf("row %d: data %v with label %d", k, d.F32[2*k:2*k+2], l.I32[k])
				}
			}
			r = append(r, l.I32...)
			p = append(p, b.Padded)
			b.Release()
		}
		rows, padded = append(rows, r), append(padded, p)
	}
	return rows, padded
}

// TestNDArrayIterLastBatch: 7 samples in batches of 3. "pad" fills the
// last batch with the first samples and counts them in Padded, "discard"
// drops it, "roll_over" starts the next epoch with it.
func TestNDArrayIterLastBatch(t *testing.T) {
	x, y := xy(7)
	for _, tt := range []struct {
		handle string
		rows   [][]int32
		padded []int
	}{
		{"pad", [][]int32{{0, 1, 2, 3, 4, 5, 6, 0, 1}, {0, 1, 2, 3, 4, 5, 6, 0, 1}}, []int{0, 0, 2}},
		{"discard", [][]int32{{0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, 5}}, []int{0, 0}},
		{"roll_over", [][]int32{{0, 1, 2, 3, 4, 5}, {6, 0, 1, 2, 3, 4}}, []int{0, 0}},
	} {
		t.Run(tt.handle, func(t *testing.T) {
			feed, err := mxnet.NDArrayIter(context.Background(), mxnet.Params{"data": x, "label": y, "batch_size": 3, "last_batch_handle": tt.handle})
			if err != nil {
				t.Fatal(err)
			}
			rows, padded := epochs(t, feed, 2)
			if !slices.EqualFunc(rows, tt.rows, slices.Equal) {
				t.Errorf("samples %v, want %v", rows, tt.rows)
			}
			if !slices.Equal(padded[0], tt.padded) {
				t.Errorf("padded %v, want %v", padded[0], tt.padded)
			}
		})
	}
}

// TestNDArrayIterShuffle: a new order every epoch, the same for the same
// seed, a permutation of the samples with data and labels together.
func TestNDArrayIterShuffle(t *testing.T) {
	x, y := xy(50)
	run := func(seed int) [][]int32 {
		feed, err := mxnet.NDArrayIter(context.Background(), mxnet.Params{"data": x, "label": y, "batch_size": 10, "shuffle": true, "seed": seed})
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := epochs(t, feed, 2)
		return rows
	}
	a, b, c := run(3), run(3), run(4)
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Error("the same seed gave other orders")
	}
	if slices.Equal(a[0], a[1]) || slices.Equal(a[0], c[0]) {
		t.Error("two epochs, or two seeds, in the same order")
	}
	for _, o := range a {
		if s := slices.Sorted(slices.Values(o)); !slices.Equal(s, y.I32) || slices.IsSorted(o) {
			t.Fatalf("epoch %v: not a shuffled permutation", o)
		}
	}
}

// TestNDArrayIterArrays: several named arrays of each element type, in
// order; names default to data_name and label_name.
func TestNDArrayIterArrays(t *testing.T) {
	n := 4
	f := tensor.Tensor{Name: "f", Shape: []int{n, 1, 2}, DType: sample.Float32, F32: []float32{0, 1, 2, 3, 4, 5, 6, 7}}
	i64 := tensor.Tensor{Name: "i64", Shape: []int{n}, DType: sample.Int64, I64: []int64{10, 11, 12, 13}}
	u8 := tensor.Tensor{Name: "u8", Shape: []int{n, 3}, DType: sample.Uint8, U8: []uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	lab := tensor.Tensor{Shape: []int{n}, DType: sample.Int32, I32: []int32{5, 6, 7, 8}}
	feed, err := mxnet.NDArrayIter(context.Background(), mxnet.Params{"data": []tensor.Tensor{f, i64, u8}, "label": lab, "batch_size": "2", "label_name": "y"})
	if err != nil {
		t.Fatal(err)
	}
	var got []*tensor.Batch
	for b, err := range feed.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if len(got) != 2 {
		t.Fatalf("%d batches", len(got))
	}
	b := got[1]
	if names := []string{b.Data[0].Name, b.Data[1].Name, b.Data[2].Name, b.Label[0].Name}; !slices.Equal(names, []string{"f", "i64", "u8", "y"}) {
		t.Errorf("tensors %v", names)
	}
	if !slices.Equal(b.Data[0].F32, []float32{4, 5, 6, 7}) || !slices.Equal(b.Data[0].Shape, []int{2, 1, 2}) ||
		!slices.Equal(b.Data[1].I64, []int64{12, 13}) || !slices.Equal(b.Data[2].U8, []uint8{6, 7, 8, 9, 10, 11}) || !slices.Equal(b.Label[0].I32, []int32{7, 8}) {
		t.Errorf("second batch %+v", b)
	}
	two, err := mxnet.NDArrayIter(context.Background(), mxnet.Params{"data": []tensor.Tensor{{Shape: []int{1}, DType: sample.Float32, F32: []float32{1}}, {Shape: []int{1}, DType: sample.Int32, I32: []int32{2}}}})
	if err != nil {
		t.Fatal(err)
	}
	for b, err := range two.All(context.Background()) {
		if err != nil || b.Data[0].Name != "data0" || b.Data[1].Name != "data1" || len(b.Label) != 0 {
			t.Errorf("nameless arrays: %v %+v", err, b)
		}
	}
}

// TestNDArrayIterResume: a checkpoint after any batch resumes the rest of
// the run exactly.
func TestNDArrayIterResume(t *testing.T) {
	x, y := xy(23)
	params := mxnet.Params{"data": x, "label": y, "batch_size": 4, "shuffle": true, "seed": 9, "last_batch_handle": "roll_over"}
	straightFeed, err := mxnet.NDArrayIter(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	straight, _ := epochs(t, straightFeed, 3)
	want := slices.Concat(straight...)
	for stop := 1; stop < len(want)/4; stop += 3 {
		feed, _ := mxnet.NDArrayIter(context.Background(), params)
		var got []int32
		var ck *pipeline.Checkpoint
	run:
		for _, pass := range feed.Epochs(context.Background(), 3) {
			for b, err := range pass {
				if err != nil {
					t.Fatal(err)
				}
				l, _ := b.Get("softmax_label")
				got = append(got, l.I32...)
				b.Release()
				if len(got) == 4*stop {
					if ck, err = feed.Checkpoint(context.Background()); err != nil {
						t.Fatal(err)
					}
					break run
				}
			}
		}
		again, _ := mxnet.NDArrayIter(context.Background(), params)
		rest, err := again.EpochsFrom(context.Background(), ck, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, pass := range rest {
			for b, err := range pass {
				if err != nil {
					t.Fatal(err)
				}
				l, _ := b.Get("softmax_label")
				got = append(got, l.I32...)
				b.Release()
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("stopped after %d batches and resumed: %v, straight %v", stop, got, want)
		}
	}
}

func TestNDArrayIterRefuses(t *testing.T) {
	x, y := xy(5)
	short := tensor.Tensor{Name: "short", Shape: []int{4}, DType: sample.Int32, I32: []int32{1, 2, 3, 4}}
	for _, tt := range []struct {
		p    mxnet.Params
		want string
	}{
		{mxnet.Params{"data": x, "batch": 2}, `cannot find argument "batch"`},
		{mxnet.Params{"label": y}, "data: no array"},
		{mxnet.Params{"data": x, "label": short}, `"short" has 4 samples, "data" has 5`},
		{mxnet.Params{"data": x, "label": tensor.Tensor{Name: "data", Shape: []int{5}, DType: sample.Int32, I32: make([]int32, 5)}}, `two arrays are called "data"`},
		{mxnet.Params{"data": tensor.Tensor{Shape: []int{5, 2}, DType: sample.Float32, F32: make([]float32, 9)}}, "holds 9 float32 values where the shape needs 10"},
		{mxnet.Params{"data": tensor.Tensor{Shape: []int{2}, DType: sample.Int8, I8: make([]int8, 2)}}, "is int8: the element type is not"},
		{mxnet.Params{"data": tensor.Tensor{DType: sample.Float32}}, "needs a sample dimension"},
		{mxnet.Params{"data": []float32{1, 2}}, "not a tensor.Tensor or a []tensor.Tensor"},
		{mxnet.Params{"data": x, "batch_size": 0}, "batch_size 0"},
		{mxnet.Params{"data": x, "last_batch_handle": "roll"}, `last_batch_handle "roll"`},
		{mxnet.Params{"data": x, "shuffle": "maybe"}, "shuffle=maybe"},
	} {
		if _, err := mxnet.NDArrayIter(context.Background(), tt.p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want an error with %q", tt.p, err, tt.want)
		}
	}
}

// TestNDArrayIterContract: the feed keeps the reader contract (the same
// batches every pass of an epoch, early break and cancellation leave no
// goroutine, checked by TestMain), with and without a shuffle.
func TestNDArrayIterContract(t *testing.T) {
	x, y := xy(37)
	for _, shuffle := range []bool{false, true} {
		feed, err := mxnet.NDArrayIter(context.Background(), mxnet.Params{"data": x, "label": y, "batch_size": 5, "shuffle": shuffle})
		if err != nil {
			t.Fatal(err)
		}
		if err := sourcetest.TestReader(source.Reader[*tensor.Batch](feed)); err != nil {
			t.Errorf("shuffle %v: %v", shuffle, err)
		}
	}
}
