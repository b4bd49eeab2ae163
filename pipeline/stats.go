package pipeline

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tensorfeed/tensorfeed/source"
)

// node is one named step of a pipeline and its counters. Counters are
// updated by the goroutine that runs a pass of the step and read by Stats
// at any time.
type node struct {
	name    string
	parents []*node
	cfg     *config
	epochs  source.Epochs

	passes  atomic.Int64
	errors  atomic.Int64
	samples atomic.Int64
	timed   atomic.Int64
	wall    atomic.Int64 // ns, summed over passes
	fixed   atomic.Int64 // ns of busy time measured on every pass (first sample, tail)
	sbusy   atomic.Int64 // ns of busy time in sampled intervals
	swait   atomic.Int64 // ns of wait time in sampled intervals
}

func newNode(name string, cfg *config, parents ...*node) *node {
	return &node{name: name, cfg: cfg, parents: parents}
}

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
// before it. A step behind Buffered or ParallelMap is Busy only while that
// stage's queue is empty, so its upstream work, done on other goroutines,
// does not count. A training loop that never waits for data sees its last
// step mostly Waiting.
//
// # How it is measured
//
// Reading the clock for every sample would cost more than a cheap step, so
// the counters read it on a sample of the requests: always for the first
// sample and the end of a pass, for every sample when samples take 10 µs or
// more (batches, as a rule), and otherwise for one sample in 64 to 191 (a
// random stride, so that the sample cannot lock onto a periodic pattern such
// as a batch boundary). The cost per sample and step is then about that of
// one stage.Map layer, 3-4 ns on a 2-core machine (BenchmarkBuilder). Wall and Samples are exact; Busy is the time
// measured for the first sample and the tail plus the rest of Wall split in
// the proportion of the sampled intervals, and Wait is Wall - Busy. Timed
// says how many samples were measured: when it equals Samples, Busy and
// Wait are exact.
type StageStats struct {
	Name    string        // the step's name
	Passes  int64         // passes started
	Errors  int64         // passes that ended with an error
	Samples int64         // samples (or batches) yielded to the consumer
	Timed   int64         // samples whose timing was measured
	Wall    time.Duration // total time of the passes
	Busy    time.Duration // time producing, in the step and upstream
	Wait    time.Duration // time waiting for the consumer
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
		Timed:   s.Timed - before.Timed,
		Wall:    s.Wall - before.Wall,
		Busy:    s.Busy - before.Busy,
		Wait:    s.Wait - before.Wait,
	}
}

// MarshalLogObject writes the snapshot as zap fields.
func (s StageStats) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("stage", s.Name)
	enc.AddInt64("passes", s.Passes)
	enc.AddInt64("errors", s.Errors)
	enc.AddInt64("samples", s.Samples)
	enc.AddDuration("wall", s.Wall)
	enc.AddDuration("busy", s.Busy)
	enc.AddDuration("wait", s.Wait)
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
func (st Stats) String() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "stage\tpasses\tsamples\twall\tbusy\twait\tper s\t")
	for _, s := range st {
		fmt.Fprintf(w, "%s\t%d\t%d\t%v\t%v\t%v\t%.0f\t\n", s.Name, s.Passes, s.Samples,
			s.Wall.Round(time.Microsecond), s.Busy.Round(time.Microsecond), s.Wait.Round(time.Microsecond), s.Rate())
	}
	w.Flush()
	return b.String()
}

// snapshot reads the counters of one node.
func (n *node) snapshot() StageStats {
	s := StageStats{
		Name:    n.name,
		Passes:  n.passes.Load(),
		Errors:  n.errors.Load(),
		Samples: n.samples.Load(),
		Timed:   n.timed.Load(),
		Wall:    time.Duration(n.wall.Load()),
	}
	s.Busy = estimateBusy(s.Wall, time.Duration(n.fixed.Load()),
		time.Duration(n.sbusy.Load()), time.Duration(n.swait.Load()))
	s.Wait = s.Wall - s.Busy
	return s
}

// estimateBusy splits wall time: fixed is busy time measured on every pass;
// the rest of wall is split in the proportion sbusy : swait of the sampled
// intervals.
func estimateBusy(wall, fixed, sbusy, swait time.Duration) time.Duration {
	busy := fixed
	if rest := wall - fixed; rest > 0 && sbusy+swait > 0 {
		busy += time.Duration(float64(rest) * float64(sbusy) / float64(sbusy+swait))
	}
	return min(max(busy, 0), max(wall, 0))
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
	slowSample = 10 * time.Microsecond // time every sample from this period on
	strideMin  = 64                    // otherwise time one sample in [strideMin, strideMin+strideSpan)
	strideSpan = 128
	publishGap = time.Millisecond // the longest a pass keeps its counts to itself
)

// meter is the state of one pass of an instrumented step. It lives on the
// goroutine that runs the pass and publishes to the node's atomics at the
// first timed sample after publishGap and at the end of the pass.
type meter struct {
	n         *node
	last      time.Time // last publication
	req       time.Time // when the consumer asked for the next sample (valid when pending)
	pending   bool      // a busy interval is open
	fixedNext bool      // the open busy interval is the first of the pass
	countdown int       // samples until the next one that reads the clock
	set       int       // the value countdown was last set to
	base      int64     // samples of the pass before countdown was last set
	rest      int       // after the one that closes a busy interval, samples until the next timed one
	rng       uint64    // xorshift state for the stride

	timed, fixed, sbusy, swait int64 // pass totals (ns for times)
	pubCount, pubTimed         int64 // already published
	pubFixed, pubBusy, pubWait int64
	wall                       int64
	lastTimedCount             int64
	lastTimedAt                time.Time
}

func (m *meter) startPass(n *node, now time.Time) {
	*m = meter{n: n, last: now, req: now, pending: true, fixedNext: true, countdown: 1, set: 1,
		rng: 0x9e3779b97f4a7c15 ^ uint64(n.passes.Add(1)), lastTimedAt: now}
}

// samples returns the number of samples of the pass so far. The hot loop
// only decrements countdown; the count is derived from it.
func (m *meter) samples() int64 { return m.base + int64(m.set-m.countdown) }

// setCountdown makes the x-th next sample read the clock.
func (m *meter) setCountdown(x int) {
	m.base = m.samples()
	m.set, m.countdown = x, x
}

// arrive closes an open busy interval at now.
func (m *meter) arrive(now time.Time) {
	d := int64(now.Sub(m.req))
	if m.fixedNext {
		m.fixed += d
		m.fixedNext = false
	} else {
		m.sbusy += d
	}
	m.pending = false
}

// timedDone records the wait of a timed sample that arrived at at and was
// handed back at now, opens the next busy interval and publishes.
func (m *meter) timedDone(at, now time.Time) {
	m.swait += int64(now.Sub(at))
	m.timed++
	m.req, m.pending = now, true
	// The next sample closes the busy interval just opened; the next timed
	// one comes a stride after this one, chosen from the mean period since
	// the last timed sample.
	count := m.samples()
	m.setCountdown(1)
	m.rest = 0
	if k := count - m.lastTimedCount; k <= 0 || now.Sub(m.lastTimedAt) < slowSample*time.Duration(k) {
		m.rng ^= m.rng << 13
		m.rng ^= m.rng >> 7
		m.rng ^= m.rng << 17
		m.rest = strideMin - 1 + int(m.rng%strideSpan)
	}
	m.lastTimedCount, m.lastTimedAt = count, now
	if now.Sub(m.last) >= publishGap {
		m.publish(now)
	}
}

func (m *meter) publish(now time.Time) {
	n := m.n
	d := int64(now.Sub(m.last))
	m.last = now
	m.wall += d
	n.wall.Add(d)
	count := m.samples()
	n.samples.Add(count - m.pubCount)
	n.timed.Add(m.timed - m.pubTimed)
	n.fixed.Add(m.fixed - m.pubFixed)
	n.sbusy.Add(m.sbusy - m.pubBusy)
	n.swait.Add(m.swait - m.pubWait)
	m.pubCount, m.pubTimed, m.pubFixed, m.pubBusy, m.pubWait = count, m.timed, m.fixed, m.sbusy, m.swait
}

// endPass publishes the last counts; a pass that ended on its own (not by
// the consumer stopping) counts the time since the last request as busy.
func (m *meter) endPass(epoch int, ended bool, err error) {
	now := time.Now()
	if m.pending && ended {
		m.fixedNext = true
		m.arrive(now)
	}
	m.publish(now)
	if err != nil {
		m.n.errors.Add(1)
	}
	l := m.n.cfg.logger
	if ce := l.Check(zap.DebugLevel, "pass done"); ce != nil {
		w := time.Duration(m.wall)
		busy := estimateBusy(w, time.Duration(m.fixed), time.Duration(m.sbusy), time.Duration(m.swait))
		ce.Write(zap.String("stage", m.n.name), zap.Int("epoch", epoch), zap.Int64("samples", m.samples()),
			zap.Duration("wall", w), zap.Duration("busy", busy), zap.Duration("wait", w-busy), zap.Error(err))
	}
}

// instrument wraps a step's reader with its node's counters. Per sample it
// costs a countdown and one more function call; the clock is read on timed
// samples only (see StageStats).
func instrument[T any](n *node, r source.Reader[T]) source.Reader[T] {
	if !n.cfg.stats {
		return r
	}
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			ep := n.epochs.Next(ctx)
			var m meter
			m.startPass(n, time.Now())
			stopped := false // the consumer stopped, or the pass failed
			ended := false   // the upstream pass returned on its own
			var perr error
			defer func() { m.endPass(ep, ended, perr) }()
			// The upstream pass is called with a function of ours rather
			// than ranged: one call per sample, no range-over-func state.
			r.All(ctx)(func(v T, err error) bool {
				if stopped { // an upstream that ignores the end of its pass
					return false
				}
				if err != nil {
					stopped, perr = true, err
					if m.pending {
						m.arrive(time.Now())
					}
					yield(v, err)
					return false
				}
				m.countdown--
				if m.countdown > 0 { // most samples: no clock
					if yield(v, nil) {
						return true
					}
					stopped = true
					return false
				}
				at := time.Now()
				if m.pending {
					m.arrive(at)
				}
				if m.rest > 0 { // this sample only closed the busy interval
					m.setCountdown(m.rest)
					m.rest = 0
					if yield(v, nil) {
						return true
					}
					stopped = true
					return false
				}
				ok := yield(v, nil)
				m.timedDone(at, time.Now())
				if !ok {
					m.pending = false
					stopped = true
				}
				return ok
			})
			ended = !stopped
		}
	})
}
