// Package array feeds training from arrays in memory, as MXNet.jl's
// ArrayDataProvider does: named data and label arrays whose first
// dimension is the sample, a batch size (0 for all the samples in one
// batch), a new shuffle every epoch and padding of the last batch with a
// value.
//
// A [Provider] is a source.Reader of *tensor.Batch. Underneath it is the
// usual pipeline over sample indices: a reader of indices 0..N-1 (shuffled
// per epoch), batch.OfFill padding with index -1, and a sink whose fields
// copy row i of each array (or write the padding value for -1).
//
//	p := array.New(
//		[]array.Array{array.Float32("data", []int{2}, x)},
//		[]array.Array{array.Float32("softmax_label", nil, y)},
//		array.BatchSize(32), array.Shuffle(1))
//	for b, err := range p.All(ctx) { ... b.Get("data") ... b.Release() }
package array
