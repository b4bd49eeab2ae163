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
// stage.Repeat do; otherwise the stage's own count of its passes, so a
// plain loop over All still sees a fresh order every epoch. Start returns
// the context with that epoch set, which the stage passes on to the readers
// it runs, so the epoch travels by context only, never also by argument.
//
// # Sources
//
// [Slice], [Generate], [Constant] and [Concurrent] (several readers read at
// once into one stream through a bounded buffer, as PaddlePaddle's
// MultipleReader) start pipelines; the dataset packages provide format
// readers.
package source
