// Package pipeline wires sources, stages, batches and sinks into one
// readable pipeline, runs it over epochs, counts what every step does, and
// bridges to go-streams for fan-in, fan-out and go-streams operators.
//
// # Building
//
// From starts a *Pipe at any source.Reader. Steps that keep the element
// type are methods (Shuffle, Filter, Take, Skip, Buffered, Repeat, Cache,
// Shard, Tee); steps that change it are free functions, because Go methods
// cannot add type parameters (Map, MapErr, ParallelMap, Enumerate, Zip2,
// Batch, BatchFill, Tensorize, Apply, Via). Each returns a new Pipe, so a
// whole pipeline reads top to bottom:
//
//	p := pipeline.From(source.Slice(files))
//	images := pipeline.ParallelMap(p, 4, decode).Shuffle(1000, seed)
//	batches := pipeline.Batch(images, 64, batch.Pad).Buffered(2)
//	tensors := pipeline.Tensorize(batches, s)
//
// Every step delegates to the stage, batch or sink function of the same
// name and has a name for stats and logs (the step's kind, or Named /
// WithName). A Pipe is itself a source.Reader, so it can be passed to any
// stage or ranged directly; building reads nothing and starts no goroutine.
//
// # Running
//
// Epochs yields the number of each epoch with its pass, run with
// source.WithEpoch so that random stages draw from (seed, epoch):
//
//	for epoch, pass := range tensors.Epochs(ctx, 10) {
//		for ts, err := range pass {
//			...
//		}
//	}
//
// Run is the same loop with a callback and a single error. The same seed
// gives the same batches in every run; epochs differ from each other.
//
// # Stats and logs
//
// Every step counts its passes, errors, samples and, for a reader with a
// bad-record policy, the records it skipped, and measures the time it
// spends producing (Busy: in the step and upstream) against the time it
// waits for its consumer (Wait); see StageStats for the exact definition
// and how the clock is sampled to keep the cost near that of one Map layer
// per sample and step. Busy never shrinks along a synchronous chain, and
// the difference of two snapshots taken between epochs equals the per-pass
// log. Pipe.Stats returns a snapshot at any time, also while passes run.
// The logger given with WithLogger (default zap.NewNop(); the global logger
// is never used) receives an Info entry per epoch with every step's
// counters as zap fields, and a Debug entry per pass of every step.
//
// # go-streams
//
// github.com/reugn/go-streams carries `any` over unbuffered goroutine
// hops and has neither errors nor cancellation, so tensorfeed uses it on
// batch-level edges and at the boundary, where a hop per batch is cheap:
//
//   - Merge: fan-in of several readers through flow.Merge.
//   - Pipe.Tee and Pipe.TeeSink: fan-out through flow.FanOut to a second
//     consumer while the pipe's consumer ranges the same elements.
//   - ToStreams: a typed reader as a go-streams Source, for .Via(flow).To(sink).
//   - FromStreams: a go-streams Outlet as a typed reader, with a type check
//     that yields an error wrapping ErrType instead of panicking.
//   - Via: go-streams operators as a typed step; Guard turns errors and
//     panics in their functions into error elements.
//
// The bridge adds what go-streams lacks. Errors travel as error elements
// (Guard) or on a side channel (the scope.Group of the goroutines that feed
// go-streams, and StreamSource.Err). Cancellation stops the feeding
// goroutines, which close their channels; go-streams operators then close
// theirs in turn, and the pass reads its outlet to the end, so that when a
// pass returns every go-streams goroutine it caused has left its loop and
// every goroutine it started has been joined. A panic on a go-streams
// goroutine cannot be recovered from outside, which is why user functions
// go through Guard or run on goroutines the bridge owns (Tee). Carry
// pointers or small values (a batch.Batch, a *sink.Tensors) across it,
// never large structs by value.
package pipeline
