// Package batch groups the samples of a reader into batches, decides what
// happens to the last, short batch of a pass, and pads variable-length
// sequences into flat, rectangular data.
//
// # Batches
//
// [Of] turns a reader of samples into a reader of [Batch] values of a fixed
// size. Every batch owns a freshly allocated Samples slice: a consumer may
// keep it, modify it or hand it to another goroutine. Batching allocates
// that slice and nothing else per batch; it never allocates per sample.
// Samples are copied into the slice by value, so a sample that holds a
// slice or a pointer still shares that memory with whoever produced it.
//
// # Recycling
//
// For large samples the new slice per batch is most of the garbage a
// pipeline makes. With the [Recycling] option the consumer hands each batch
// back with [Batch.Release] when it is done with it, and Of fills that
// slice again instead of allocating one; in steady state batching then
// allocates nothing. Like csv.Reader.ReuseRecord it is opt-in, because the
// consumer gives up the batch when it recycles it. The hand-back is
// explicit, so it stays safe when a prefetching stage holds several batches
// at once. pipeline.Tensorize and pipeline.PadSeqs recycle every batch
// after copying it, so a pipeline that ends in them needs only the option
// (pipeline.Tensorize batches with the sink's size and recycles by itself):
//
//	batches := pipeline.Batch(samples, 64, batch.Keep, batch.Recycling())
//	seqs := pipeline.PadSeqs(batches, 0, 0)
//
// # The last batch of a pass
//
// When the number of samples in a pass is not a multiple of the batch size,
// a [Policy] decides what to do with the remainder:
//
//   - [Keep] yields it as a shorter batch;
//   - [Drop] discards it;
//   - [Pad] fills the batch up by repeating the first samples of the pass
//     and counts them in Batch.Padded (MXNet.jl's count_samples is
//     len(Samples) - Padded); [OfFill] pads with a fixed value instead;
//   - [RollOver] keeps the remainder in the reader and puts it at the start
//     of the first batch of the next pass (MXNet's roll_over); Batch.Carried
//     counts the carried samples, which MXNet reports as pad;
//   - [RoundBatch] pads like Pad and starts the next pass after the samples
//     the padding took (MXNet's round_batch), where Pad restarts every pass
//     at the first sample.
//
// Size 0 makes the whole pass a single batch, as MXNet.jl's
// ArrayDataProvider does with batch_size 0; the policy then has no effect.
//
// # Sequences
//
// pipeline.PadSeqs pads every batch of variable-length sequences ([]E
// samples) to the longest sequence of the batch or to a fixed length,
// giving a [Seqs]: flat row-major [rows, L] data, the true lengths and, on
// demand, a mask.
//
// # Custom batching
//
// Any source.Reader[Batch[T]] is a batch reader: a user who groups samples
// by hand (PaddlePaddle's custom_batch_reader: bucketing by length, batches
// read whole from a file) writes one with source.Func and hands it to the
// same sinks as the output of Of.
package batch
