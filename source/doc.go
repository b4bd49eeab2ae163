// Package source defines the reader, tensorfeed's unit of data flow, and the
// generic sources that start a pipeline.
//
// # Readers
//
// A [Reader] is re-iterable: every call to All starts one new pass (one epoch)
// over the data and returns an [iter.Seq2] of samples and errors:
//
//	for s, err := range r.All(ctx) {
//		if err != nil {
//			return err // a failed pass yields its error once, then stops
//		}
//		use(s)
//	}
//
// Files are opened inside the pass and closed when it ends, so breaking out
// of the loop, an error and a panic all release them. Channels and goroutines
// live inside the stages that need them and never show in the API.
//
// # Epochs
//
// Random stages derive their generator from (seed, epoch). A stage learns
// the epoch of its pass in one call, [Epochs.Start]: the epoch in the
// context ([WithEpoch]) when the caller set one, as the pipeline runner and
// pipeline's Repeat do; otherwise the stage's own count of its passes, so a
// plain loop over All still sees a fresh order every epoch. Start returns
// the context with that epoch set, which the stage passes on to the readers
// it runs, so the epoch travels by context only, never also by argument.
//
// # Random access and a shuffle by index
//
// An [Indexed] dataset has a length and a Get(i); [ReadIndexed] reads it in
// order or, with [ShuffleIndex], in the order of a permutation of the
// pass's epoch: a global shuffle with no buffer. The permutation is a
// seeded bijection of [0, n) computed index by index (a keyed Feistel
// network with cycle walking), not a shuffled array: an array of n indices
// costs n words per epoch, must be rebuilt from the start to reach a late
// position, and would have to be saved to resume. With the bijection a
// position is three integers, (seed, epoch, index): the sample at position
// p of epoch e is Get(perm(n, seed, e).At(p)), so any position
// of any epoch is reached directly, and the From method of [ReadIndexed]'s reader resumes a
// pass at its exact position without reading the samples before it.
// [MapIndexed] transforms samples while keeping random access.
//
// # Sources
//
// [Slice], [Generate], [Constant] and [Concurrent] (several readers read at
// once into one stream through a bounded buffer, as PaddlePaddle's
// MultipleReader) start pipelines; the dataset packages provide format
// readers.
package source
