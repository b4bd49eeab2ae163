package pipeline

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/source"
)

// now is the counters' clock; tests replace it with one they control.
var now = time.Now

// node is one named step of a pipeline and its counters. Counters are
// updated by the goroutines that run passes of the step and read by Stats
// at any time.
type node struct {
	name    string
	parents []*node
	cfg     *config
	epochs  source.Epochs
	// sync: the step's stage reads its input on the goroutine that reads
	// the step, inside the step's own pull (Map, Shuffle, Batch, ...), so
	// the input's passes join this step's segment (see segment).
	sync    bool
	self    selfRule     // how StageStats.Self follows from Busy
	skipped func() int64 // the reader's skip count (source.SkipCounted), or nil

	passes  atomic.Int64
	errors  atomic.Int64
	samples atomic.Int64
	timed   atomic.Int64
	wall    atomic.Int64 // ns, summed over passes
	busy    atomic.Int64 // ns, summed over passes; at most wall
}

func newNode(name string, cfg *config, parents ...*node) *node {
	return &node{name: name, cfg: cfg, parents: parents}
}

// selfRule says how a step's own time (StageStats.Self) follows from the
// Busy of the step and of its inputs.
type selfRule uint8

const (
	// selfInclusive: the step reads its inputs inside its own pulls, so
	// its Busy includes theirs: Self is Busy minus the inputs' Busy.
	selfInclusive selfRule = iota
	// selfConcurrent: the step's work and its inputs run on other
	// goroutines, at the same time (ParallelMap): Self is Busy, the time
	// its consumer waited for it, minus the Busy of its busiest input.
	selfConcurrent
	// selfRelay: the step only hands over what its inputs, all measured,
	// made on other goroutines (Buffered, FanIn of pipes): Self is 0.
	selfRelay
)

// StageStats is a snapshot of the counters of one step, summed over all the
// passes it has run (including the one running now, up to its last update).
//
// # Busy and Wait
//
// A step is a pull iterator. Between the moment its consumer asks for the
// next sample (the consumer's loop body returns) and the moment the sample
// is delivered, the step is Busy: it is producing, in its own code and in
// everything upstream of it. Between delivery and the next request it
// Waits: the sample is in the hands of everything downstream, including the
// training loop. Wall = Busy + Wait is the time its passes ran.
//
// Busy is inclusive, like a profiler's cumulative time: in a synchronous
// chain the cost of a step alone is its Busy minus the Busy of the step
// before it, and that difference is never negative (see below). A step
// behind Buffered or ParallelMap is Busy only while that stage's queue is
// empty, so its upstream work, done on other goroutines, does not count. A
// training loop that never waits for data sees its last step mostly
// Waiting.
//
// # How it is measured
//
// Reading the clock for every sample would cost more than a cheap step, so
// the steps that run on one goroutine (a synchronous chain: Map, Filter,
// Shuffle, Batch, ... down to the next Buffered, ParallelMap or the
// consumer) share one sampled clock. Every hand-over of a sample between
// two of them, or to the consumer, is an event, and between two events
// exactly one step of the chain is producing: it and every step after it
// are Busy, the others Wait. The chain reads the clock on every event while
// events are slowEvent (2 µs, a threshold, not a measurement) or more apart
// on average (batches, slow decoding): then
// Busy and Wait are exact. Otherwise it times one interval between two
// events in 64 to 191 (a random stride, so that the sample cannot lock onto
// a periodic pattern such as a batch boundary) and counts it as many times
// as the stride was long. The cost per sample and step is a countdown and a
// store (BenchmarkBuilder measures it).
//
// Because every timed interval is counted alike for all the steps of the
// chain, a step's Busy can never come out below that of a step before it
// in the chain, and a pass's times are final when it ends: the difference
// of two snapshots taken between epochs (Sub) is exactly what the per-pass
// log entries say. Wall, Samples and Skipped are exact. Timed says how many
// samples' deliveries read the clock: when it equals Samples, Busy and Wait
// are exact.
//
// # Self
//
// Self is the time a step spends in its own code, for finding the slowest
// step (Report). How it follows from Busy depends on where the step's
// inputs run:
//
//   - A source, and a step that reads its input inside its own pulls, on
//     its consumer's goroutine (Map, MapErr, Filter, Shuffle, Take, Skip,
//     Repeat, Cache, Shard, Enumerate, Batch, BatchFill, Tensorize,
//     TensorizeBatches, PadSeqs, the Zips, Apply): Busy minus the Busy of
//     its inputs. Along a synchronous chain the Self times add up to the
//     last step's Busy. A stage given to Apply is taken to read its input
//     in the same way; Self is never below 0.
//   - Buffered, and FanIn when all its readers are pipes: 0. Such a step
//     only hands over samples made on other goroutines; its Busy is the
//     time its consumer found nothing ready, and the cause is a step before
//     it, whose own Self shows it.
//   - ParallelMap, and FanIn with a reader that is not a pipe: Busy minus
//     the Busy of its busiest input that is a pipe. The step's work runs on
//     other goroutines, side by side with its input, so it is not timed per
//     call; the time its consumer waited for it (Busy) counts both the work
//     and the waits for the input, and the input's Busy is the time the
//     input kept the step waiting. The difference is an estimate: exact when
//     the workers are never idle or the input is always ready, and in
//     between it leans towards the input. A FanIn reader that is not a pipe
//     is measured only here.
type StageStats struct {
	Name    string        // the step's name
	Passes  int64         // passes started
	Errors  int64         // passes that ended with an error
	Samples int64         // samples (or batches) yielded to the consumer
	Skipped int64         // bad records the step's reader skipped (source.SkipCounted), 0 for others
	Timed   int64         // samples whose delivery read the clock
	Wall    time.Duration // total time of the passes
	Busy    time.Duration // time producing, in the step and upstream
	Wait    time.Duration // time waiting for the consumer
	Self    time.Duration // time producing in the step's own code (see Self above)
}

// Rate returns the samples per second of Wall (0 before any time passed).
func (s StageStats) Rate() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Samples) / s.Wall.Seconds()
}

// BusyFraction returns Busy / Wall (0 before any time passed).
func (s StageStats) BusyFraction() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Busy) / float64(s.Wall)
}

// Sub returns the difference s - before of two snapshots of the same step:
// the counters of what happened in between, such as one epoch.
func (s StageStats) Sub(before StageStats) StageStats {
	return StageStats{
		Name:    s.Name,
		Passes:  s.Passes - before.Passes,
		Errors:  s.Errors - before.Errors,
		Samples: s.Samples - before.Samples,
		Skipped: s.Skipped - before.Skipped,
		Timed:   s.Timed - before.Timed,
		Wall:    s.Wall - before.Wall,
		Busy:    s.Busy - before.Busy,
		Wait:    s.Wait - before.Wait,
		Self:    s.Self - before.Self,
	}
}

// MarshalLogObject writes the snapshot as zap fields.
func (s StageStats) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("stage", s.Name)
	enc.AddInt64("passes", s.Passes)
	enc.AddInt64("errors", s.Errors)
	enc.AddInt64("samples", s.Samples)
	if s.Skipped != 0 {
		enc.AddInt64("skipped", s.Skipped)
	}
	enc.AddDuration("wall", s.Wall)
	enc.AddDuration("busy", s.Busy)
	enc.AddDuration("wait", s.Wait)
	enc.AddDuration("self", s.Self)
	enc.AddFloat64("per_s", s.Rate())
	return nil
}

// Stats is a snapshot of every step that feeds a pipe, sources first and the
// pipe's own last step last.
type Stats []StageStats

// Last returns the snapshot of the pipe's own last step (the zero value for
// an empty Stats).
func (st Stats) Last() StageStats {
	if len(st) == 0 {
		return StageStats{}
	}
	return st[len(st)-1]
}

// Sub returns the step-by-step difference st - before of two snapshots of
// the same pipe.
func (st Stats) Sub(before Stats) Stats {
	out := make(Stats, len(st))
	for i, s := range st {
		if i < len(before) {
			s = s.Sub(before[i])
		}
		out[i] = s
	}
	return out
}

// MarshalLogArray writes every step as a zap object.
func (st Stats) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, s := range st {
		if err := enc.AppendObject(s); err != nil {
			return err
		}
	}
	return nil
}

// String formats the snapshot as a table, one step per line.
func (st Stats) String() string { return st.table(-1) }

// table formats st as a table, one step per line: names left, numbers
// right, the note "<- slowest" after step mark (none when mark < 0).
func (st Stats) table(mark int) string {
	rows := [][]string{{"stage", "passes", "samples", "skipped", "wall", "busy", "wait", "self", "per s"}}
	for _, s := range st {
		rows = append(rows, []string{s.Name, fmt.Sprint(s.Passes), fmt.Sprint(s.Samples), fmt.Sprint(s.Skipped),
			short(s.Wall).String(), short(s.Busy).String(), short(s.Wait).String(), short(s.Self).String(),
			fmt.Sprintf("%.0f", s.Rate())})
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for j, cell := range row {
			width[j] = max(width[j], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for i, row := range rows {
		for j, cell := range row {
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(cell))
			if j == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		if mark >= 0 && i-1 == mark {
			b.WriteString("  <- slowest")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// short rounds d to four significant digits (1.235s, 12.35ms, 999ns).
func short(d time.Duration) time.Duration {
	u := time.Duration(1)
	for d >= 10000*u || d <= -10000*u {
		u *= 10
	}
	return d.Round(u)
}

// snapshot reads the counters of one node. Busy is read before Wall and
// published after it, so that Busy <= Wall holds in every snapshot.
func (n *node) snapshot() StageStats {
	s := StageStats{
		Name:    n.name,
		Passes:  n.passes.Load(),
		Errors:  n.errors.Load(),
		Samples: n.samples.Load(),
		Timed:   n.timed.Load(),
		Busy:    time.Duration(n.busy.Load()),
		Wall:    time.Duration(n.wall.Load()),
	}
	if n.skipped != nil {
		s.Skipped = n.skipped()
	}
	s.Wait = s.Wall - s.Busy
	return s
}

// lineage returns the nodes that feed n and n itself, each once, parents
// before children.
func (n *node) lineage() []*node {
	var out []*node
	seen := map[*node]bool{}
	var visit func(*node)
	visit = func(m *node) {
		if seen[m] {
			return
		}
		seen[m] = true
		for _, p := range m.parents {
			visit(p)
		}
		out = append(out, m)
	}
	visit(n)
	return out
}

// The sampling of the clock (see StageStats).
const (
	slowEvent  = 2 * time.Microsecond // time every event while events are this far apart on average
	window     = 64                   // events over which a timing chain judges that average
	strideMin  = 64                   // otherwise time one interval in [strideMin, strideMin+strideSpan)
	strideSpan = 128
	publishGap = time.Millisecond // the longest a segment keeps its counts to itself
)

// segment is the shared clock of the passes of a synchronous chain of
// steps, all running on one goroutine: the pass of its first meter (the
// step nearest the consumer) and the passes of the steps it reads
// synchronously, which join it through the context. It lives as long as
// that first pass.
type segment struct {
	active    *meter // the step producing now (nil: the chain's consumer has the sample)
	countdown int    // events until the next that reads the clock
	open      bool   // an interval is being timed
	t         time.Time
	weight    int64     // intervals the open interval stands for
	every     bool      // time every event
	mark      time.Time // the start of the current judging period
	marked    int64     // events since mark
	lastPub   time.Time
	pstart    time.Time // the start of the publication period
	praw      int64     // ns counted in timed intervals since pstart
	rng       uint64    // xorshift state for the stride
	meters    []*meter  // running passes, downstream before upstream
}

// meter is one pass of an instrumented step.
type meter struct {
	n     *node
	seg   *segment
	down  *meter // the pass that reads this one in the same segment (nil: the segment's consumer)
	start time.Time
	count int64 // samples delivered
	timed int64 // deliveries that read the clock
	raw   int64 // ns of timed intervals counted as busy since the last publication
	// logger is the pass's (tensorfeed.Logger of its context), fetched once.
	logger *zap.Logger
	// published so far
	pubAt                                time.Time
	pubCount, pubTimed, pubBusy, pubWall int64
}

// link is what a pass puts in the context of the reader it pulls from, so
// that a synchronous input joins its segment.
type link struct {
	seg  *segment
	m    *meter
	node *node
}

type linkKey struct{}

// begin starts the pass of node n at t: as a step read synchronously by the
// pass in ctx, or as the first step of a new segment. It returns the
// context for n's own input.
func begin(ctx context.Context, n *node, t time.Time) (*meter, context.Context) {
	m := &meter{n: n, start: t, pubAt: t}
	n.passes.Add(1)
	if l, _ := ctx.Value(linkKey{}).(*link); l != nil && l.node.sync && slices.Contains(l.node.parents, n) {
		m.seg, m.down = l.seg, l.m
		m.seg.meters = append(m.seg.meters, m)
		m.seg.event(m, nil) // the pass starts with n producing
	} else {
		s := &segment{every: true, open: true, t: t, weight: 1, countdown: 1, mark: t, lastPub: t, pstart: t,
			rng: 0x9e3779b97f4a7c15 ^ uint64(t.UnixNano())}
		s.meters = append(s.meters, m)
		s.active = m
		m.seg = s
	}
	return m, context.WithValue(ctx, linkKey{}, &link{seg: m.seg, m: m, node: n})
}

// event records a hand-over: from now on next produces (nil: the
// segment's consumer has the sample). delivered is the pass that has just
// delivered a sample, if any. The hot path, in instrument, only counts down
// and stores next; this is the whole of it.
func (s *segment) event(next, delivered *meter) {
	if s.countdown--; s.countdown > 0 {
		s.active = next
		return
	}
	s.tick(next, delivered)
}

// tick is an event that reads the clock: it closes or opens the timed
// interval.
func (s *segment) tick(next, delivered *meter) {
	t := now()
	if delivered != nil {
		delivered.timed++
	}
	if !s.open {
		s.open, s.t, s.countdown = true, t, 1
		s.active = next
		return
	}
	s.count(t)
	s.marked += s.weight
	s.active = next
	if s.every && s.marked >= window || !s.every {
		// Judge the mean time per event since mark: slow events are all
		// timed, fast ones sampled.
		s.every = t.Sub(s.mark) >= slowEvent*time.Duration(s.marked)
		s.mark, s.marked = t, 0
	}
	if s.every {
		s.t, s.weight, s.countdown = t, 1, 1
	} else {
		s.open = false
		s.rng ^= s.rng << 13
		s.rng ^= s.rng >> 7
		s.rng ^= s.rng << 17
		stride := strideMin + int(s.rng%strideSpan)
		s.countdown, s.weight = stride, int64(stride)+1
	}
	if t.Sub(s.lastPub) >= publishGap {
		s.publish(t)
	}
}

// count counts the open interval, from s.t to t, weighted: as busy for
// s.active, which spent it producing for its consumer, and for every step
// after it in the chain, which spent it waiting for their inputs.
func (s *segment) count(t time.Time) {
	d := int64(t.Sub(s.t)) * s.weight
	s.praw += d
	for m := s.active; m != nil; m = m.down {
		m.raw += d
	}
	s.t = t
}

// publish adds what every running pass of the segment counted since its
// last publication to its node, downstream passes first, so that a
// concurrent snapshot, which reads upstream steps first, never sees a step
// busier than the one after it. The counted intervals are scaled by one
// factor for all the passes, the time since the period began over the
// time counted: 1 when every event is timed, and otherwise the correction
// that makes the sampled intervals add up to the time that passed.
func (s *segment) publish(t time.Time) {
	s.lastPub = t
	f := 0.0
	if s.praw > 0 {
		f = float64(t.Sub(s.pstart)) / float64(s.praw)
		s.pstart, s.praw = t, 0
	}
	for _, m := range s.meters {
		m.publish(t, f)
	}
}

// publish adds m's counts since its last publication to its node, its
// counted busy time scaled by f (see segment.publish); f = 0 means nothing
// was counted. The busy time published is capped by the wall time and
// never falls, so a pass's published totals are final when it ends.
func (m *meter) publish(t time.Time, f float64) {
	n := m.n
	wall := int64(t.Sub(m.start))
	busy := m.pubBusy
	if f > 0 {
		busy += int64(float64(m.raw) * f)
		m.raw = 0
	}
	busy = max(m.pubBusy, min(busy, wall))
	n.samples.Add(m.count - m.pubCount)
	n.timed.Add(m.timed - m.pubTimed)
	n.wall.Add(wall - m.pubWall)
	n.busy.Add(busy - m.pubBusy)
	m.pubAt, m.pubCount, m.pubTimed, m.pubWall, m.pubBusy = t, m.count, m.timed, wall, busy
}

// end finishes m's pass: a pass that ended on its own (not by the consumer
// stopping) hands control back to its consumer, which is an event. The
// segment publishes, and so does m for the last time.
func (m *meter) end(epoch int, ended bool, err error) {
	s := m.seg
	if ended {
		s.event(m.down, nil)
	}
	t := now()
	if s.open {
		s.count(t) // what m's pass spent up to its end
	}
	i := slices.Index(s.meters, m)
	s.publish(t)
	s.meters = slices.Delete(s.meters, i, i+1)
	if err != nil {
		m.n.errors.Add(1)
	}
	if ce := m.logger.Check(zap.DebugLevel, "pass done"); ce != nil {
		w, b := time.Duration(m.pubWall), time.Duration(m.pubBusy)
		ce.Write(zap.String("stage", m.n.name), zap.Int("epoch", epoch), zap.Int64("samples", m.count),
			zap.Duration("wall", w), zap.Duration("busy", b), zap.Duration("wait", w-b), zap.Error(err))
	}
}

// instrument wraps a step's reader with its node's counters. Per sample it
// costs two countdowns and two stores; the clock is read on timed events
// only (see StageStats).
func instrument[T any](n *node, r source.Reader[T]) source.Reader[T] {
	if !n.cfg.stats {
		return r
	}
	if sc, ok := r.(source.SkipCounted); ok && n.skipped == nil {
		n.skipped = sc.Skipped
	}
	return &instrumented[T]{n: n, inner: r, Reader: counted(n, r)}
}

// instrumented is a step's reader with its counters. It is transparent to
// states: they are the inner reader's, so statistics do not change a
// checkpoint, and a resumed step counts into the same node.
type instrumented[T any] struct {
	source.Reader[T]
	n     *node
	inner source.Reader[T]
}

func (x *instrumented[T]) StateAt(epoch int, k int64) (source.State, error) {
	return source.StateOf(x.inner, epoch, k)
}

func (x *instrumented[T]) Resume(st source.State) (source.Reader[T], error) {
	r, err := source.ResumeFrom(x.inner, st)
	if err != nil {
		return nil, err
	}
	return instrument(x.n, r), nil
}

// counted returns r counted into n's statistics.
func counted[T any](n *node, r source.Reader[T]) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			ctx, ep := n.epochs.Start(ctx)
			m, in := begin(ctx, n, now())
			m.logger = tensorfeed.Logger(ctx)
			s, down := m.seg, m.down
			stopped := false // the consumer stopped, or the pass failed
			ended := false   // the upstream pass returned on its own
			var perr error
			defer func() { m.end(ep, ended, perr) }()
			// The upstream pass is called with a function of ours rather
			// than ranged: one call per sample, no range-over-func state.
			r.All(in)(func(v T, err error) bool {
				if stopped { // an upstream that ignores the end of its pass
					return false
				}
				if err != nil {
					stopped, perr = true, err
					s.event(down, nil)
					yield(v, err)
					return false
				}
				m.count++
				// Delivery: the consumer has the sample.
				if s.countdown--; s.countdown > 0 {
					s.active = down
				} else {
					s.tick(down, m)
				}
				if !yield(v, nil) {
					stopped = true
					return false
				}
				// Request: this step produces the next sample.
				if s.countdown--; s.countdown > 0 {
					s.active = m
				} else {
					s.tick(m, nil)
				}
				return true
			})
			ended = !stopped
		}
	})
}
