// Package pipeline wires sources, stages, batches and sinks into one
// readable pipeline, runs it over epochs and counts what every step does.
// Its subpackage gostreams bridges pipes to go-streams for fan-out and
// go-streams operators.
//
// # Building
//
// From starts a *Pipe at any source.Reader. Steps that keep the element
// type are methods (Shuffle, Filter, Take, Skip, Buffered, Repeat, Cache,
// Shard); steps that change it are free functions, because Go methods
// cannot add type parameters (Map, MapErr, ParallelMap, Enumerate, Zip2,
// Zip3, Zip4, Batch, PadSeqs, Tensorize, TensorizeBatches,
// Apply). FanIn starts a
// pipe at several readers read at once. Each returns a new Pipe, so a whole
// pipeline reads top to bottom, with the batch size written once, in the
// sink that describes the tensors:
//
//	s := sink.New(64, data, label)
//	p := pipeline.From(source.Slice(files))
//	images := pipeline.ParallelMap(p, 4, decode).Shuffle(1000, seed)
//	tensors := pipeline.Tensorize(images, s, batch.Pad).Buffered(2)
//
// Every step delegates to the stage, batch or sink function of the same
// name and has a name for stats and logs (the step's kind, or the name given
// with Named). A Pipe is itself a source.Reader, so it can be passed to any
// stage or ranged directly; building reads nothing and starts no goroutine.
//
// # Running
//
// Epochs yields the number of each epoch with its pass, run with
// source.WithEpoch so that random stages draw from (seed, epoch):
//
//	for epoch, pass := range tensors.Epochs(ctx, 10) {
//		for b, err := range pass {
//			... // train on b
//			b.Release()
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
// waits for its consumer (Wait); see Stats for the exact definition
// and how the clock is sampled to keep the cost near that of one Map layer
// per sample and step. Busy never shrinks along a synchronous chain, and
// the difference of two snapshots taken between epochs equals the per-pass
// log. Pipe.Stats returns a snapshot at any time, also while passes run.
//
// Stats.Report turns the counters into a bottleneck report: how long the
// training loop waited for data, which step spends the most time in its
// own code, and the table of every step, for everything the pipe ran or for
// one epoch's counters (the difference of two snapshots):
//
//	fmt.Print(feed.Stats().Report())
//
//	waited for data: 1.21s of 4.01s (30%)
//	slowest step:    decode, 3.1s of its own (78% of its wall)
//	stage      passes  samples  skipped   wall   busy   wait   self  per s
//	files           1     6400        0     4s  300ms   3.7s  300ms   1600
//	decode          1     6400        0     4s   3.4s  600ms   3.1s   1600  <- slowest
//	batch           1      100        0     4s  3.45s  550ms   50ms     25
//	tensorize       1      100        0     4s   3.7s  300ms  250ms     25
//	buffered        1      100        0  4.01s  1.21s   2.8s     0s     25
//
// Here the loop waited 30% of the time; the decoding workers are the step
// to speed up (more workers, a faster decoder), and a deeper Buffered would
// not help, since the steps behind it are busy nearly all the time. Self,
// a step's time in its own code, is exact along a chain of steps on one
// goroutine and an estimate across ParallelMap and FanIn; see Stats.
// Time a step spends waiting for its consumer (the training step, a full
// prefetch buffer) is not its own time.
//
// When the loop waited for data under 5% of the time, the input is not
// what limits training, and the report says so instead of naming a slowest
// step (the report's InputBound is false, its Slowest empty):
//
//	the input is not the bottleneck: the loop waited for data 0.3% of the time
//
// The logger of the context a pass runs with (tensorfeed.WithLogger; none,
// and nothing is logged, by default) receives an Info entry per epoch with
// every step's counters as zap fields, and a Debug entry per pass of every
// step.
//
// # go-streams
//
// Package pipeline/gostreams adapts pipes to and from
// github.com/reugn/go-streams (Tee, TeeSink, Via, From, To), so that the
// builder itself carries no `any`.
package pipeline
