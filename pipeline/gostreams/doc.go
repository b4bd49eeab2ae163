// Package gostreams bridges tensorfeed pipelines and
// github.com/reugn/go-streams, for the graph: fan-out to a second consumer,
// go-streams operators as a typed step, and go-streams sources and sinks at
// the boundary.
//
// go-streams carries `any` over unbuffered goroutine hops and has neither
// errors nor cancellation, so the bridge lives here, apart from the typed
// builder in package pipeline, and belongs on batch-level edges, where a
// hop per batch is cheap:
//
//   - Tee and TeeSink: fan-out through flow.FanOut to a second consumer
//     while the pipe's consumer ranges the same elements.
//   - To: a typed reader as a go-streams Source, for .Via(flow).To(sink).
//   - From: a go-streams Outlet as a typed pipe, with a type check that
//     yields an error wrapping ErrType instead of panicking.
//   - Via: go-streams operators as a typed step; Guard turns errors and
//     panics in their functions into error elements.
//
// Fan-in needs no go-streams: pipeline.FanIn (source.Concurrent) reads
// several readers at once with typed hand-overs.
//
// # Errors and cancellation
//
// The bridge adds what go-streams lacks. Errors travel as error elements
// (Guard) or on a side channel (the scope.Group of the goroutines that feed
// go-streams, and the Err of [To]'s source). Cancellation stops the feeding goroutines,
// which close their channels; go-streams operators then close theirs in
// turn, and the pass reads its outlet to the end, so that when a pass
// returns every go-streams goroutine it caused has left its loop and every
// goroutine it started has been joined. A panic on a go-streams goroutine
// cannot be recovered from outside, which is why user functions go through
// Guard or run on goroutines the bridge owns (Tee). Carry pointers or small
// values (a batch.Batch, a *tensor.Batch) across it, never large structs by
// value.
package gostreams
