package pipeline

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// Pipe is a pipeline under construction and a reader of its output: every
// method adds one named step and returns a new Pipe, and Pipe implements
// source.Reader[T], so a pipe can be ranged, passed to any stage, or
// extended further. Building starts no goroutine and reads nothing; each
// call to All runs one pass through every step.
//
// Methods keep the element type. Steps that change it are free functions
// (Map, ParallelMap, Batch, Tensorize, ...), because Go methods cannot add
// type parameters. Build a pipe before running it; a Pipe is safe to run
// from several goroutines at once, but Named must not race with a pass.
type Pipe[T any] struct {
	r    source.Reader[T] // the step's reader, instrumented
	node *node
	pos  position // where the consumer of Epochs stands
}

// From starts a pipeline at r. The first step is named "source"; rename it
// with Named.
func From[T any](r source.Reader[T], opts ...Option) *Pipe[T] {
	if r == nil {
		panic("pipeline.From: nil reader")
	}
	cfg := newConfig(opts)
	var parents []*node
	if p, ok := r.(*Pipe[T]); ok {
		parents = append(parents, p.node)
	}
	q := start(cfg, "source", r, parents...)
	q.node.sync = len(parents) > 0 // r is a pipe, read by this step's pull
	return q
}

// start makes the first pipe of a lineage with the given config.
func start[T any](cfg *config, name string, r source.Reader[T], parents ...*node) *Pipe[T] {
	n := newNode(name, cfg, parents...)
	return &Pipe[T]{r: instrument(n, r), node: n}
}

// then adds a step named name whose reader is r and whose input is p.
func then[In, Out any](p *Pipe[In], name string, r source.Reader[Out]) *Pipe[Out] {
	n := newNode(name, p.node.cfg, p.node)
	return &Pipe[Out]{r: instrument(n, r), node: n}
}

// thenSync is then for a step whose stage reads p on the goroutine that
// reads the step, inside its own pull, and nowhere else: p's passes then
// share the step's clock (see Stats). Only stages known to be
// synchronous qualify; Buffered, ParallelMap and any user stage do not.
func thenSync[In, Out any](p *Pipe[In], name string, r source.Reader[Out]) *Pipe[Out] {
	n := newNode(name, p.node.cfg, p.node)
	n.sync = true
	return &Pipe[Out]{r: instrument(n, r), node: n}
}

// All runs one pass of the pipeline. It makes Pipe a source.Reader.
func (p *Pipe[T]) All(ctx context.Context) iter.Seq2[T, error] { return p.r.All(ctx) }

// StateAt returns the state of the pipeline's pass of epoch after its
// consumer received n items: source.Resumable. See Checkpoint.
func (p *Pipe[T]) StateAt(epoch int, n int64) (source.State, error) {
	return source.StateOf(p.r, epoch, n)
}

// Resume returns a reader that continues a pass from st: source.Resumable.
// Its steps count into p's statistics. See EpochsFrom.
func (p *Pipe[T]) Resume(st source.State) (source.Reader[T], error) {
	return source.ResumeFrom(p.r, st)
}

// stepNode returns the node of the pipe's last step, whatever T is, for
// steps that take pipes of several element types (the Zips).
func (p *Pipe[T]) stepNode() *node { return p.node }

// Named renames the pipe's last step, for stats and logs, and returns p:
//
//	pipeline.Map(p, decode).Named("decode")
//
// Call it while building, before any pass runs.
func (p *Pipe[T]) Named(name string) *Pipe[T] {
	p.node.name = name
	return p
}

// Stats returns a snapshot of the counters of every step that feeds p,
// sources first and p's last step last. It is safe to call while passes
// run; each running pass publishes its counts about once a millisecond
// (and at its end), so they lag by at most that. See Stats for what
// the numbers mean.
func (p *Pipe[T]) Stats() Stats {
	nodes := p.node.lineage()
	out := make(Stats, len(nodes))
	at := make(map[*node]int, len(nodes))
	for i, n := range nodes {
		s := n.snapshot()
		switch n.self {
		case selfInclusive:
			s.Self = s.Busy
			for j, q := range n.parents {
				if !slices.Contains(n.parents[:j], q) { // a pipe zipped with itself counts once
					s.Self -= out[at[q]].Busy
				}
			}
			s.Self = max(s.Self, 0) // steps on separate clocks (Zip, Apply) may disagree a little
		case selfConcurrent:
			var in time.Duration
			for _, q := range n.parents {
				in = max(in, out[at[q]].Busy)
			}
			s.Self = max(s.Busy-in, 0)
		}
		at[n] = i
		out[i] = s
	}
	return out
}

// Shuffle adds a shuffle buffer of buffer samples whose order
// is drawn from (seed, epoch). A buffer of 0 turns shuffling off (the step
// passes samples through in order, as PaddlePaddle's shuffle with buf_size
// 0); a negative buffer panics. Step name "shuffle".
func (p *Pipe[T]) Shuffle(buffer int, seed uint64) *Pipe[T] {
	return thenSync(p, "shuffle", stage.Shuffle[T](p, buffer, seed))
}

// Filter adds a step through which only the samples for which keep is true pass.
// Step name "filter".
func (p *Pipe[T]) Filter(keep func(T) bool) *Pipe[T] {
	return thenSync(p, "filter", stage.Filter[T](p, keep))
}

// Take adds a step that passes at most n samples per pass. Step name "take".
func (p *Pipe[T]) Take(n int) *Pipe[T] { return thenSync(p, "take", stage.Take[T](p, n)) }

// Skip adds a step where the first n samples of every pass are dropped. Step
// name "skip".
func (p *Pipe[T]) Skip(n int) *Pipe[T] { return thenSync(p, "skip", stage.Skip[T](p, n)) }

// Buffered adds prefetching: a goroutine reads up to n samples ahead of
// the consumer. n = 0 turns prefetching off (the step passes samples
// through, read by the consumer, as PaddlePaddle's buffered with size 0);
// n = Auto reads ahead within the prefetch budget (see Autotune); another
// negative n panics. Step name "buffered".
func (p *Pipe[T]) Buffered(n int) *Pipe[T] {
	if n == Auto { // bounded by the prefetch budget: see Autotune
		r, held := autoBuffered(p)
		q := then(p, "buffered", r)
		q.node.self, q.node.tuned = selfRelay, func() string { return fmt.Sprintf("auto peak %d B", held.Load()) }
		return q
	}
	if n == 0 { // no goroutine: p is read by the step's reader
		return thenSync(p, "buffered", stage.Buffered[T](p, n))
	}
	q := then(p, "buffered", stage.Buffered[T](p, n))
	q.node.self = selfRelay
	return q
}

// Repeat adds a step where each pass runs n passes of p (n < 0: endless).
// Step name "repeat".
func (p *Pipe[T]) Repeat(n int) *Pipe[T] { return thenSync(p, "repeat", stage.Repeat[T](p, n)) }

// Cache adds a step where the first complete pass is kept in memory and
// later passes replay it. Step name "cache".
func (p *Pipe[T]) Cache() *Pipe[T] { return thenSync(p, "cache", stage.Cache[T](p)) }

// Shard adds a step that passes part partIndex of numParts (one worker's share in
// distributed training). Step name "shard".
func (p *Pipe[T]) Shard(numParts, partIndex int) *Pipe[T] {
	return thenSync(p, "shard", stage.Shard[T](p, numParts, partIndex))
}
