package pipeline

import (
	"context"
	"fmt"
	"iter"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Auto, as the workers of ParallelMap or the size of Buffered, lets the
// pipeline size the step as the pass runs, within the budget of Autotune
// (tf.data's AUTOTUNE). A number given by hand is used as it is. It is a
// negative number no size can be, so that other negative sizes still
// panic as the mistakes they are.
const Auto = math.MinInt32

// defaultPrefetchBytes is the prefetch budget of a pipeline whose
// Autotune gives none: 256 MiB.
const defaultPrefetchBytes = 256 << 20

// Autotune sets the budget the Auto steps of a pipeline share: cores
// goroutines at work in all its ParallelMap(Auto) steps together (0:
// GOMAXPROCS), and prefetchBytes held ahead of their consumers by all its
// Buffered(Auto) steps together (0: 256 MiB). Give it to
// From (or FanIn, Mix, Interleave); steps built on the pipe inherit it.
// Without it, Auto steps share a budget of GOMAXPROCS cores and 256 MiB
// of their own.
//
// A ParallelMap(Auto) step starts cores workers, of which at most its
// current width work at once, and at most cores over all Auto steps: the
// width starts at cores and is hill-climbed on the step's measured
// throughput (samples mapped per second, over periods of at least 20 ms
// and 64 samples): it is lowered while that costs under 5% of the
// throughput, which leaves cores to other steps when the consumer, not the
// step, is the bottleneck, and every 8 steady periods a width one wider
// and one narrower are tried in turn.
// A Buffered(Auto) step reads ahead until the bytes it holds (the tensors
// of a *tensor.Batch, the elements of a slice of numbers, else the size of
// the value) would pass the shared budget, and always at least one sample.
// Report names the Auto steps' choices: "auto 2/4" (2 of 4 workers at
// work) and "auto peak 65536 B" (the most bytes the last pass held).
// Neither changes what a pass yields or its state: a checkpoint taken
// with Auto resumes with hand-set sizes and the other way round.
// Autotune panics when cores or prefetchBytes is negative.
func Autotune(cores int, prefetchBytes int64) Option {
	if cores < 0 || prefetchBytes < 0 {
		panic(fmt.Sprintf("pipeline.Autotune(%d, %d): negative budget", cores, prefetchBytes))
	}
	return option.New(func(c *config) { c.tune = newTuning(cores, prefetchBytes) })
}

// tuning is the budget of a pipeline's Auto steps.
type tuning struct {
	cores    int
	tokens   chan struct{} // one per core: a worker at work holds one
	bytes    int64
	mu       sync.Mutex
	held     int64         // bytes the Buffered(Auto) steps hold
	released chan struct{} // signalled when held falls
}

func newTuning(cores int, bytes int64) *tuning {
	if cores == 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	if bytes == 0 {
		bytes = defaultPrefetchBytes
	}
	return &tuning{cores: cores, tokens: make(chan struct{}, cores), bytes: bytes, released: make(chan struct{}, 1)}
}

// tuningOf returns the budget of a pipe's lineage, made on first use.
func tuningOf(cfg *config) *tuning {
	cfg.tuneOnce.Do(func() {
		if cfg.tune == nil {
			cfg.tune = newTuning(0, 0)
		}
	})
	return cfg.tune
}

// gate is the width of one ParallelMap(Auto) step: how many of its workers
// may run f at once, hill-climbed on their throughput. A worker at work
// holds a slot of slots (capacity cores); the gate narrows the width by
// keeping slots itself (reserved), taken as workers leave, and widens it
// by giving them back. Every wait is a channel operation that also
// selects on the pass's end.
type gate struct {
	t     *tuning
	slots chan struct{}

	mu       sync.Mutex
	width    int // workers allowed at once
	reserved int // slots the gate holds: cores - width once settled

	// hill-climbing, under mu
	done    int64     // samples mapped in this period
	start   time.Time // of this period
	rate    float64   // throughput at lastW
	lastW   int       // the width rate was measured at (0: none yet)
	periods int       // since the last probe
	up      bool      // the last probe was of a wider width
	passes  int       // passes of the step running now
	idle    time.Time // when the last pass ended, while none runs

	now atomic.Int64 // width, for Report
}

func newGate(t *tuning) *gate {
	g := &gate{t: t, width: t.cores, slots: make(chan struct{}, t.cores)}
	g.now.Store(int64(t.cores))
	return g
}

// enter waits for a slot within the width and a core of the budget. It
// reports false when done is closed first.
func (g *gate) enter(done <-chan struct{}) bool {
	select {
	case g.slots <- struct{}{}:
	case <-done:
		return false
	}
	select {
	case g.t.tokens <- struct{}{}:
		return true
	case <-done:
		<-g.slots
		return false
	}
}

// leave gives back the core and the slot, counts the sample mapped and
// moves the width at the end of a period.
func (g *gate) leave() {
	<-g.t.tokens
	g.mu.Lock()
	defer g.mu.Unlock()
	g.count(time.Now())
	if g.reserved < g.t.cores-g.width {
		g.reserved++ // narrower: the gate keeps this slot
		return
	}
	<-g.slots
	for g.reserved > g.t.cores-g.width { // wider: hand slots back
		<-g.slots
		g.reserved--
	}
}

// begin counts a pass of the step starting at now. The time since the
// last pass ended, when no pass ran (the consumer was doing something
// else: a plain loop measured between epochs, an evaluation), is taken
// out of the current period, so that the rate of a period that spans
// passes is the step's own: with it, the throughput of any width looked
// lower by a random amount and the width drifted down (a 16-core image
// feed whose epoch of 12 batches fills in about 0.4 s ran at two workers'
// rate).
func (g *gate) begin(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.passes == 0 && !g.idle.IsZero() && !g.start.IsZero() {
		g.start = g.start.Add(now.Sub(g.idle))
	}
	g.passes++
}

// end counts a pass of the step ending at now.
func (g *gate) end(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.passes--; g.passes == 0 {
		g.idle = now
	}
}

// Tuning periods: at least this long and this many samples.
const (
	tunePeriod  = 20 * time.Millisecond
	tuneSamples = 64
	tuneProbe   = 8 // periods between two probes of a wider width
)

// count adds a sample mapped at now and, at the end of a period, moves
// the width: one narrower while that keeps 95% of the throughput of the
// wider width, back when it does not; one wider after a narrowing that
// cost throughput is undone only by a probe. Once steady, every tuneProbe
// periods it probes one wider and one narrower in turn, kept when wider
// gains 5% or narrower loses under 5%. Called with mu held.
func (g *gate) count(now time.Time) {
	g.done++
	if g.start.IsZero() {
		g.start = now
		return
	}
	el := now.Sub(g.start)
	if el < tunePeriod || g.done < tuneSamples {
		return
	}
	rate := float64(g.done) / el.Seconds()
	g.done, g.start = 0, now
	g.periods++
	w := g.width
	switch {
	case g.lastW == 0: // first period: the reference
		g.lastW, g.rate = w, rate
		w = max(w-1, 1)
	case g.lastW > w: // we went narrower
		if rate < 0.95*g.rate {
			w = g.lastW // it cost throughput: back
			g.periods = 0
		} else {
			g.lastW, g.rate = w, rate
			w = max(w-1, 1)
		}
	case g.lastW < w: // we probed wider
		if rate > 1.05*g.rate {
			g.lastW, g.rate = w, rate
		} else {
			w = g.lastW
		}
		g.periods = 0
	default: // steady: follow the rate, probe now and then
		g.rate = 0.5*g.rate + 0.5*rate
		if g.periods >= tuneProbe {
			g.periods = 0
			g.up = !g.up
			switch {
			case g.up && w < g.t.cores:
				w++
			case !g.up && w > 1:
				w--
			}
		}
	}
	g.width = w
	g.now.Store(int64(w))
}

// autoParallelMap is ParallelMap(p, Auto, f): cores workers, each of
// which runs f only within the gate (see gatedMap).
func autoParallelMap[In, Out any](p *Pipe[In], f func(In) (Out, error), opts []ParallelOption) (source.Reader[Out], *gate) {
	t := tuningOf(p.node.cfg)
	g := newGate(t)
	return source.Follow("parallel-map", source.Reader[In](p), func(up source.Reader[In]) source.Reader[Out] {
		return gatedMap(t, g, up, f, opts)
	}), g
}

// gatedMap is the ordered parallel map of up by f with t.cores workers,
// each of which runs f only within g: the pass of ParallelMap(Auto) and of
// Tensorize with Workers(Auto). The gate's waits end with the pass: f
// cannot see the pass's context, so each pass records the context its
// upstream runs with, which the workers' pass cancels when it ends.
func gatedMap[In, Out any](t *tuning, g *gate, up source.Reader[In], f func(In) (Out, error), opts []ParallelOption) source.Reader[Out] {
	return source.Func[Out](func(ctx context.Context) iter.Seq2[Out, error] {
		var done atomic.Pointer[<-chan struct{}]
		watched := source.Func[In](func(ctx context.Context) iter.Seq2[In, error] {
			d := ctx.Done()
			done.Store(&d)
			return up.All(ctx)
		})
		mapped := func(v In) (Out, error) {
			// The upstream pass has started before any sample reaches
			// a worker, so done is set.
			if !g.enter(*done.Load()) {
				var zero Out
				return zero, context.Canceled
			}
			defer g.leave()
			return f(v)
		}
		pass := stage.ParallelMap(watched, t.cores, mapped, opts...).All(ctx)
		return func(yield func(Out, error) bool) {
			g.begin(time.Now())
			defer func() { g.end(time.Now()) }()
			for v, err := range pass {
				if !yield(v, err) {
					return
				}
			}
		}
	})
}

// sizeOf returns the bytes a sample holds, for the prefetch budget.
func sizeOf[T any](v T) int64 {
	switch x := any(v).(type) {
	case *tensor.Batch:
		var n int64
		for _, ts := range [][]tensor.Tensor{x.Data, x.Label} {
			for _, t := range ts {
				n += int64(len(t.F32))*4 + int64(len(t.I32))*4 + int64(len(t.I64))*8 + int64(len(t.U8)) + int64(len(t.I8))
			}
		}
		return n
	case []float32:
		return int64(len(x)) * 4
	case []byte:
		return int64(len(x))
	case []int32:
		return int64(len(x)) * 4
	case []int64:
		return int64(len(x)) * 8
	}
	return int64(unsafe.Sizeof(v))
}

// take waits until n more bytes fit the budget (or this step holds none:
// one sample always goes ahead) and takes them; it reports false when ctx
// ends first.
func (t *tuning) take(ctx context.Context, mine *atomic.Int64, n int64) bool {
	for {
		t.mu.Lock()
		if t.held+n <= t.bytes || mine.Load() == 0 {
			t.held += n
			mine.Add(n)
			room := t.held < t.bytes
			t.mu.Unlock()
			if room { // another step may be waiting: let it look
				t.signal()
			}
			return true
		}
		t.mu.Unlock()
		select {
		case <-t.released:
		case <-ctx.Done():
			return false
		}
	}
}

// give hands back n bytes.
func (t *tuning) give(mine *atomic.Int64, n int64) {
	t.mu.Lock()
	t.held -= n
	mine.Add(-n)
	t.mu.Unlock()
	t.signal()
}

// signal wakes one step waiting in take; each that takes bytes wakes the
// next while room is left.
func (t *tuning) signal() {
	select {
	case t.released <- struct{}{}:
	default:
	}
}

// autoBufferedMax bounds the samples a Buffered(Auto) step holds, whatever
// their size.
const autoBufferedMax = 4096

// autoBuffered is Buffered(Auto): a prefetch whose reading goroutine waits
// for the budget before it takes each sample. It returns the most bytes
// the last pass held, for Report.
func autoBuffered[T any](p *Pipe[T]) (source.Reader[T], *atomic.Int64) {
	t := tuningOf(p.node.cfg)
	held := new(atomic.Int64)
	return source.Follow("buffered", source.Reader[T](p), func(up source.Reader[T]) source.Reader[T] {
		return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
			return func(yield func(T, error) bool) {
				var inflight atomic.Int64 // this pass's bytes, handed back when it ends
				mine := &inflight
				held.Store(0)
				defer func() {
					if n := mine.Load(); n != 0 {
						t.give(mine, n)
					}
				}()
				limited := source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
					return func(yield func(T, error) bool) {
						for v, err := range up.All(ctx) {
							if err == nil {
								n := sizeOf(v)
								if !t.take(ctx, mine, n) {
									var zero T
									yield(zero, ctx.Err())
									return
								}
								if m := mine.Load(); m > held.Load() {
									held.Store(m) // only this pass's reader writes it
								}
							}
							if !yield(v, err) || err != nil {
								return
							}
						}
					}
				})
				for v, err := range stage.Buffered(limited, autoBufferedMax).All(ctx) {
					if err == nil {
						t.give(mine, sizeOf(v))
					}
					if !yield(v, err) {
						return
					}
				}
			}
		})
	}), held
}
