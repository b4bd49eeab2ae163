package pipeline

import (
	"context"
	"fmt"
	"iter"
	"math/bits"
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
	self    selfRule      // how stepStats.Self follows from Busy
	skipped func() int64  // the reader's skip count (source.SkipCounted), or nil
	tuned   func() string // what an Auto step chose (autotune.go), or nil

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

// selfRule says how a step's own time (stepStats.Self) follows from the
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

// stepStats is one step's counters, an element of [Stats] (whose doc says
// what each means). The type is not exported: its values are reached
// through Stats.
type stepStats struct {
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
	Auto    string        // what an Auto step chose ("auto 3/4" workers, "auto peak 65536 B" held), "" for others
}

// rate returns the samples per second of Wall (0 before any time passed).
func (s stepStats) rate() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Samples) / s.Wall.Seconds()
}

// BusyFraction returns Busy / Wall (0 before any time passed).
func (s stepStats) BusyFraction() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Busy) / float64(s.Wall)
}

// sub returns the difference s - before of two snapshots of the same step:
// the counters of what happened in between, such as one epoch.
func (s stepStats) sub(before stepStats) stepStats {
	return stepStats{
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
		Auto:    s.Auto,
	}
}

// MarshalLogObject writes the snapshot as zap fields.
func (s stepStats) MarshalLogObject(enc zapcore.ObjectEncoder) error {
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
	enc.AddFloat64("per_s", s.rate())
	return nil
}

// Stats is a snapshot of every step that feeds a pipe, sources first and the
// pipe's own last step last. Each element holds the counters of one step,
// summed over all the passes it has run (including the one running now, up
// to its last update):
//
//   - Name: the step's name.
//   - Passes: passes started; Errors: passes that ended with an error.
//   - Samples: samples (or batches) yielded to the consumer.
//   - Skipped: bad records the step's reader skipped (source.SkipCounted),
//     0 for others.
//   - Timed: samples whose delivery read the clock.
//   - Wall: total time of the passes; Busy: time producing, in the step and
//     upstream; Wait: time waiting for the consumer; Self: time producing
//     in the step's own code (see Self below).
//   - Auto: what an Auto step chose ("auto 3/4" workers, "auto peak 65536
//     B" held), "" for others.
//   - BusyFraction() is Busy / Wall (0 before any time passed).
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
// The chain's consumer (the training loop, or the goroutine of a
// Buffered, ParallelMap or FanIn that reads the chain and blocks while its
// own consumer is busy) is different: one of its turns can last as long as
// a thousand samples' making, and a long turn that the sample misses would
// be counted as the steps' time. So its turns are timed one by one,
// between the delivery and the next request, whenever that is cheap or
// needed: while the chain delivers one sample (or batch) in 128 events or
// fewer, and while its deliveries, or the consumer's turns once timed,
// take 4 µs or more on average (and for a while after, so that the next
// long turn is seen). Their time is then none of the steps', and only the
// steps' own time is shared out by the sample. A step's Busy and Self thus
// exclude the time spent waiting for the steps after it, behind a
// goroutine as well as on one.
//
// Because every timed interval is counted alike for all the steps of the
// chain, a step's Busy can never come out below that of a step before it
// in the chain, and a pass's times are final when it ends: the difference
// of two snapshots taken between epochs (Sub) is exactly what the per-pass
// log entries say. Wall, Samples and Skipped are exact. Timed says how many
// samples' deliveries read the clock: when it equals Samples for the last
// step of a chain, its Busy and Wait are exact.
//
// # Self
//
// Self is the time a step spends in its own code, for finding the slowest
// step (Report). How it follows from Busy depends on where the step's
// inputs run:
//
//   - A source, and a step that reads its input inside its own pulls, on
//     its consumer's goroutine (Map, MapErr, Filter, Shuffle, Take, Skip,
//     Repeat, Cache, Shard, Enumerate, Batch, Tensorize,
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
type Stats []stepStats

// Last returns the snapshot of the pipe's own last step (the zero value for
// an empty Stats).
func (st Stats) Last() stepStats {
	if len(st) == 0 {
		return stepStats{}
	}
	return st[len(st)-1]
}

// Sub returns the step-by-step difference st - before of two snapshots of
// the same pipe.
func (st Stats) Sub(before Stats) Stats {
	out := make(Stats, len(st))
	for i, s := range st {
		if i < len(before) {
			s = s.sub(before[i])
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

// table formats st as a table, one step per line: names left, numbers
// right, the note "<- slowest" after step mark (none when mark < 0).
func (st Stats) table(mark int) string {
	rows := [][]string{{"stage", "passes", "samples", "skipped", "wall", "busy", "wait", "self", "per s"}}
	for _, s := range st {
		name := s.Name
		if s.Auto != "" {
			name += " (" + s.Auto + ")"
		}
		rows = append(rows, []string{name, fmt.Sprint(s.Passes), fmt.Sprint(s.Samples), fmt.Sprint(s.Skipped),
			short(s.Wall).String(), short(s.Busy).String(), short(s.Wait).String(), short(s.Self).String(),
			fmt.Sprintf("%.0f", s.rate())})
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
func (n *node) snapshot() stepStats {
	s := stepStats{
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
	if n.tuned != nil {
		s.Auto = n.tuned()
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

// The sampling of the clock (see stepStats).
const (
	slowEvent  = 2 * time.Microsecond // time every event while the steps' events are this far apart on average
	window     = 64                   // events over which a timing chain judges that average
	strideMin  = 64                   // otherwise time one interval in [strideMin, strideMin+strideSpan)
	strideSpan = 128
	publishGap = time.Millisecond // the longest a segment keeps its counts to itself
	// slowDelivery: time the consumer's every turn while the chain's
	// deliveries are this far apart on average. Two clock reads per
	// delivery then cost no more, relative to the time that passes, than
	// one per event at slowEvent.
	slowDelivery = 2 * slowEvent
	// Once slow, the consumer's turns stay timed for edgeKeep times the
	// slow time seen (see segment.judge), at most edgeKeepMax: a long turn
	// is still seen when the chain spends up to edgeKeep times as long
	// producing until the next.
	edgeKeep    = 8
	edgeKeepMax = 100 * time.Millisecond
	// Deliveries at most one in edgeRare events are rare enough to time
	// the consumer's every turn whatever it takes: two clock reads per
	// delivery then cost about what sampling does.
	edgeRare = 128
)

// segment is the shared clock of the passes of a synchronous chain of
// steps, all running on one goroutine: the pass of its first meter (the
// step nearest the consumer) and the passes of the steps it reads
// synchronously, which join it through the context. It lives as long as
// that first pass.
//
// The time of a segment falls into intervals between events, each spent
// by one step producing (that step and the steps after it are busy) or by
// the segment's consumer (every step waits). An interval is timed exactly
// (alone), sampled (it stands for weight intervals), or not timed. The
// elapsed time of a publication period is exact, so the time of the
// intervals not timed exactly is exact too: it is shared out among the
// steps in the proportions of the sampled intervals.
type segment struct {
	active    *meter // the step producing now (nil: the chain's consumer has the sample)
	first     *meter // the segment's first meter, which delivers to its consumer
	countdown int    // events until the next that reads the clock
	set       int    // countdown as the last tick left it
	open      bool   // an interval is being timed
	exact     bool   // the open interval is timed alone
	t         time.Time
	weight    int64 // intervals a sampled interval stands for
	every     bool  // time every event
	edge      bool  // time every turn of the consumer: the deliveries of first and its requests
	// judging: since mark, marked events, first's deliveries at mark, and
	// the consumer's exact time
	mark      time.Time
	marked    int64
	markCount int64
	cons      time.Duration
	edgeUntil time.Time // edge stays on until then at least
	// perDelivery is the chain's time per delivery, without the
	// consumer's, when it was last known (every turn timed).
	perDelivery time.Duration
	lastPub     time.Time
	pstart      time.Time // the start of the publication period
	px          int64     // ns timed exactly since pstart
	praw        int64     // ns counted in sampled intervals since pstart, weighted
	rng         uint64    // xorshift state for the stride
	meters      []*meter  // running passes, downstream before upstream
}

// meter is one pass of an instrumented step.
type meter struct {
	n     *node
	seg   *segment
	down  *meter // the pass that reads this one in the same segment (nil: the segment's consumer)
	start time.Time
	count int64 // samples delivered
	timed int64 // deliveries that read the clock
	exact int64 // ns of exactly timed intervals counted as busy since the last publication
	raw   int64 // ns of sampled intervals counted as busy since the last publication, weighted
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
		s := &segment{every: true, open: true, exact: true, t: t, weight: 1, countdown: 1, set: 1,
			mark: t, lastPub: t, pstart: t, rng: 0x9e3779b97f4a7c15 ^ uint64(t.UnixNano())}
		s.meters = append(s.meters, m)
		s.active, s.first = m, m
		m.seg = s
	}
	return m, context.WithValue(ctx, linkKey{}, &link{seg: m.seg, m: m, node: n})
}

// event records a hand-over: from now on next produces (nil: the
// segment's consumer has the sample). delivered is the pass that has just
// delivered a sample, if any. The hot path, in instrument, only counts down
// and stores next; this is the whole of it.
func (s *segment) event(next, delivered *meter) {
	if s.countdown--; s.countdown > 0 && !(s.edge && (next == nil || s.active == nil)) {
		s.active = next
		return
	}
	s.tick(next, delivered)
}

// tick is an event that reads the clock: one the countdown chose, or a
// turn of the consumer while edge is on. It closes the open interval and
// opens the next one to time, if any.
func (s *segment) tick(next, delivered *meter) {
	t := now()
	if delivered != nil {
		delivered.timed++
	}
	due := s.countdown <= 0
	s.marked += int64(s.set - s.countdown)
	sampled := s.open && !s.exact // a sampled interval ends here
	if s.open {
		s.count(t)
	}
	s.open = false
	s.active = next
	wasEvery := s.every
	if s.marked >= window && next != nil { // not as the consumer's turn starts: judge it with its time
		s.judge(t)
	}
	consumer := s.edge && next == nil // the consumer's turn starts, to be timed alone
	switch {
	case s.every:
		s.open, s.exact, s.countdown = true, true, 1
	case due && !sampled && wasEvery == s.every && !consumer:
		// The stride has run out: time the interval that starts here.
		s.open, s.exact, s.countdown = true, false, 1
	default:
		if due {
			s.rng ^= s.rng << 13
			s.rng ^= s.rng >> 7
			s.rng ^= s.rng << 17
			stride := strideMin + int(s.rng%strideSpan)
			s.countdown, s.weight = stride, int64(stride)+1
		}
		if consumer {
			s.open, s.exact = true, true
		}
	}
	s.set = s.countdown
	s.t = t
	if t.Sub(s.lastPub) >= publishGap {
		s.publish(t)
	}
}

// judge decides, from the stretch since mark, whether to time every event
// (the steps' events are slow on average; the consumer's exactly timed
// turns are not theirs) and whether to time the consumer's every turn
// (edge). Edge is on while deliveries are rare among events (a chain
// that ends in Batch), and otherwise turned on when the consumer's turns
// were slow on average: timed when every turn was, and otherwise the time
// of the stretch that the chain's last measured pace does not explain,
// since a long turn of the consumer hides among events that are not
// timed. It then stays on for edgeKeep times the consumer's time that
// turned it on or that it has taken since (at most edgeKeepMax): a
// consumer that trains between batches is slow once per
// batch, and each of its long turns that is not timed would be shared out
// among the steps; a stall of the chain itself, mistaken for such a turn,
// costs a few times its own length. A change of mode starts a new
// publication period, so that the sampled intervals of a period stand for
// the same kind of time.
func (s *segment) judge(t time.Time) {
	since := t.Sub(s.mark)
	delivered := s.first.count
	d := time.Duration(delivered - s.markCount)
	cons := s.cons
	if s.every || s.edge { // every turn of the consumer was timed
		if d > 0 {
			s.perDelivery = (since - cons) / d
		}
	} else { // what the chain's last known pace does not explain
		cons = since - min(since, s.perDelivery*d)
	}
	slow := d > 0 && cons >= slowDelivery*d
	rare := d*edgeRare <= time.Duration(s.marked)
	every := since-s.cons >= slowEvent*time.Duration(s.marked)
	edge := rare || slow || s.edge && t.Before(s.edgeUntil)
	if slow {
		s.edgeUntil = t.Add(min(edgeKeep*cons, edgeKeepMax))
	}
	if every != s.every || edge != s.edge {
		s.publish(t)
		s.pstart, s.praw, s.px = t, 0, 0 // what no sample explains is dropped
	}
	s.every, s.edge = every, edge
	s.mark, s.marked, s.markCount, s.cons = t, 0, delivered, 0
}

// count counts the open interval, from s.t to t: as busy for s.active,
// which spent it producing for its consumer, and for every step after it
// in the chain, which spent it waiting for their inputs. A sampled
// interval counts weight times.
func (s *segment) count(t time.Time) {
	d := int64(t.Sub(s.t))
	if s.exact {
		s.px += d
		if s.active == nil {
			s.cons += time.Duration(d)
		}
		for m := s.active; m != nil; m = m.down {
			m.exact += d
		}
	} else {
		d *= s.weight
		s.praw += d
		for m := s.active; m != nil; m = m.down {
			m.raw += d
		}
	}
	s.t = t
}

// publish adds what every running pass of the segment counted since its
// last publication to its node, downstream passes first, so that a
// concurrent snapshot, which reads upstream steps first, never sees a step
// busier than the one after it. The exactly timed intervals count as they
// are. The sampled ones are scaled by one factor for all the passes: the
// time since the period began that was not timed exactly, over the
// sampled time counted. It is 1 when the sampled intervals are all there
// is, and otherwise the correction that makes them add up to the time
// that passed outside the exactly timed intervals, which include the
// consumer's turns whenever they are long (see judge), so those never
// count as a step's.
func (s *segment) publish(t time.Time) {
	s.lastPub = t
	rest, raw := max(0, int64(t.Sub(s.pstart))-s.px), s.praw
	switch {
	case raw > 0:
		s.pstart, s.praw, s.px = t, 0, 0
	case s.edge || s.every:
		// Nothing sampled, but the consumer's turns were all timed (a
		// period has one mode, see judge): the rest is the steps'
		// producing, all of it busy time for the first.
		s.first.exact += rest
		rest = -1
		s.pstart, s.px = t, 0
	default:
		rest = -1 // nothing sampled: the period goes on
	}
	for _, m := range s.meters {
		m.publish(t, rest, raw)
	}
}

// publish adds m's counts since its last publication to its node, its
// sampled busy time scaled by rest/raw (see segment.publish); rest < 0
// means that the sampled time waits for the period's end. The busy time
// published is capped by the wall time and never falls, so a pass's
// published totals are final when it ends.
func (m *meter) publish(t time.Time, rest, raw int64) {
	n := m.n
	wall := int64(t.Sub(m.start))
	busy := m.pubBusy + m.exact
	m.exact = 0
	if rest >= 0 {
		// m.raw * rest / raw in 128 bits, exact for the steps that were
		// busy in every sampled interval (m.raw == raw): m.raw <= raw, so
		// the quotient fits.
		hi, lo := bits.Mul64(uint64(m.raw), uint64(rest))
		q, _ := bits.Div64(hi, lo, uint64(raw))
		busy += int64(q)
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
// only (see stepStats).
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
			first := down == nil
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
				// Delivery: the consumer has the sample. The first step of
				// a segment hands it to the segment's consumer, whose turns
				// may be timed alone (segment.edge).
				if s.countdown--; s.countdown > 0 && !(first && s.edge) {
					s.active = down
				} else {
					s.tick(down, m)
				}
				if !yield(v, nil) {
					stopped = true
					return false
				}
				// Request: this step produces the next sample.
				if s.countdown--; s.countdown > 0 && !(first && s.edge) {
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
