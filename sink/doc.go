// Package sink turns batches of typed samples into named, shaped, contiguous
// tensors: the data and label arrays a training step consumes.
//
// # Fields
//
// A [Field] names one tensor, gives its per-sample shape and element type,
// and says how to write one sample into it: [Float32], [Int32], [Int64] and
// [Uint8] build one from a fill function that receives the sample and its
// destination slice. This is PaddlePaddle's feeding map: one member of a
// sample may feed two tensors (two fields reading it) or none (no field).
//
// # Schema first
//
// A [Sink] knows what it produces before the first batch: ProvideData and
// ProvideLabel return the names, shapes (batch dimension first) and element
// types, as MXNet's provide_data and provide_label do, so a model can be
// built before training starts.
//
// # Tensors and who owns them
//
// Assemble (or the [Tensorize] stage) writes each batch into [Tensors]:
// flat, row-major slices with a shape. By default every batch gets new
// memory that belongs to the caller, who may keep it, change it or pass it
// on. With the [Reuse] option the sink writes every batch into the same
// memory instead: the tensors are valid only until the next batch is
// assembled, and a caller that needs them longer must copy them. Reuse
// makes steady-state assembly allocation-free.
//
// A short batch (the last one of a pass under batch.Keep) gives tensors
// whose batch dimension is smaller than the sink's batch size; the shapes
// of ProvideData and ProvideLabel are those of a full batch. Padding samples
// of a batch are its last rows, and Tensors.Padded counts them.
//
// # Data parallelism
//
// [Tensors.Split] cuts a batch into k parts for k devices (MXNet.jl's
// load_data! with slices): views that share the batch's memory.
package sink
