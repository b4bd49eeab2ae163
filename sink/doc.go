// Package sink turns batches of typed samples into named, shaped, contiguous
// tensors: the data and label arrays a training step consumes.
//
// # Struct tags
//
// For the common case the sample's struct says which of its fields are
// tensors, and [Of] builds the sink from the tags once, when it is made:
//
//	type Digit struct {
//		Image *[784]uint8 `tensor:"image,float32"`     // [batch 784] float32 in [0, 1]
//		Label uint8       `tensor:"label,label,int32"` // [batch] int32, a label tensor
//	}
//	s := sink.Of[Digit](128, sink.Scale("image", -1, 1))
//
// Filling a batch then copies each tagged field from its offset in the
// sample: no reflection and no function call per sample, as fast as a fill
// written by hand.
//
// # Fields
//
// For tensors computed from a sample rather than copied from one field, a
// [Field] names one tensor, gives its per-sample shape and element type,
// and says how to write one sample into it. [Slice] builds one from a
// function that returns a sample's member as a slice: the sink copies it
// and checks its length against the field's shape, so a sample of the
// wrong size is an error ([ErrSampleShape], a tensorfeed.ErrBadData) that
// names the field and the row, as PaddlePaddle's FileReader checks every
// instance against its dims. [Float32], [Int32], [Int64] and [Uint8] build
// one from a fill function that receives the sample and its destination
// slice, for what is computed rather than copied (a normalised image, a
// one-hot label); the sink cannot check what a fill writes. This is
// PaddlePaddle's feeding map: one member of a sample may feed two tensors
// (two fields reading it) or none (no field).
//
// # Schema first
//
// A [Sink] knows what it produces before the first batch: ProvideData and
// ProvideLabel return the names, shapes (batch dimension first) and element
// types, as MXNet's provide_data and provide_label do, so a model can be
// built before training starts.
//
// # Batch size, once
//
// The batch size is given to [New], where the tensors are described, and
// nowhere else: pipeline.Tensorize groups samples into batches of that size itself,
// with a batch.Policy for the last, short batch of a pass (keep, drop, pad,
// or roll over into the next pass):
//
//	s := sink.New(128, data, label)
//	for b, err := range pipeline.Tensorize(pipeline.From(samples), s, batch.Keep).Buffered(2).All(ctx) {
//		... // train on b
//		b.Release()
//	}
//
// pipeline.TensorizeBatches takes batches made elsewhere: a batch
// reader the user writes (PaddlePaddle's custom_batch_reader).
//
// # Tensors and who owns them
//
// Assemble and the Tensorize stages write each batch into a *tensor.Batch:
// flat, row-major slices with a shape. Every batch belongs to the caller,
// who may keep it, change it or pass it on; the sink never writes into it
// again on its own.
//
// Reuse of memory is explicit: the consumer calls Release on each batch
// when it is done with it (tensor's one recycling protocol), and the sink
// keeps a free list of released memory that Assemble and Tensorize draw
// from, so steady-state assembly is allocation-free. Because only the
// consumer decides when a batch is free, this is safe behind a prefetching
// stage (pipeline's Buffered) that holds several batches at once. The Tensorize
// stages in turn hand every sample batch they have assembled back to its
// batch reader (batch.Recycling), so the whole chain from samples to
// tensors runs without allocating per batch.
//
// A sink clears a recycled row before the fill writes into it, so that a fill
// may rely on zeros (a one-hot label). A field whose fill writes every
// element can say so with [Field.WritesAll], and its rows are then not
// cleared.
//
// A short batch (the last one of a pass under batch.Keep) gives tensors
// whose batch dimension is smaller than the sink's batch size; the shapes
// of ProvideData and ProvideLabel are those of a full batch. Padding samples
// of a batch are its last rows, and tensor.Batch.Padded counts them.
//
// # Data parallelism
//
// tensor.Batch.Split cuts a batch into k parts for k devices (MXNet.jl's
// load_data! with slices): views that share the batch's memory.
package sink
