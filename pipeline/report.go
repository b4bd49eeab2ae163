package pipeline

import (
	"fmt"
	"strings"
	"time"
)

// bottleneck is the report [Stats.Report] returns (its doc says how to
// read it). The type is not exported; its fields and methods are the
// report.
type bottleneck struct {
	// Stats are the counters of every step, sources first and the pipe's
	// last step last.
	Stats Stats
	// Wall is the time the passes of the pipe's last step ran: the time
	// its consumer spent in them.
	Wall time.Duration
	// Waited is how long the consumer waited for data: the last step's
	// Busy. The rest of Wall, the last step's Wait, is the consumer's own
	// time (training).
	Waited time.Duration
	// Slowest is the step with the largest Self, the first of equals, when
	// the input is the bottleneck (InputBound); the zero step when it
	// is not, or when no step has any time of its own.
	Slowest stepStats
}

// boundShare is the part of its time the consumer must wait for data for
// the input to count as its bottleneck.
const boundShare = 0.05

// Report returns the bottleneck report of the snapshot st: the counters of
// every step of a pipe, how long the pipe's consumer (the training loop)
// waited for data, and, when that wait is long enough to matter, which
// step spends the most time in its own code. It is what a profiler of
// tf.data shows, from the counters every pipe keeps anyway. The report of
// p.Stats() covers everything a pipe has run; that of the difference of
// two snapshots covers what ran in between, such as one epoch:
//
//	for epoch, pass := range feed.Epochs(ctx, 10) {
//		before := feed.Stats()
//		for b, err := range pass {
//			... // train on b
//		}
//		fmt.Printf("epoch %d\n%v", epoch, feed.Stats().Sub(before).Report())
//	}
//
// # Reading it
//
// Waited is the time the consumer spent waiting for the pipe to deliver:
// the Busy of the pipe's last step, measured between the consumer's request
// for the next sample and its delivery. When it is under 5% of Wall
// (InputBound is false), data is ready whenever the training loop asks, a
// faster pipeline would not make training faster, and the report says that
// the input is not the bottleneck instead of naming a step. Otherwise the
// slowest step is where to start: it is the step with the largest Self (see
// Stats), the time spent in the step's own code and not in the steps
// it reads nor waiting for the steps after it. Behind Buffered the steps
// run on another goroutine while the consumer trains, so their Self can be
// large while Waited stays small: that is prefetching doing its job.
//
// # Its fields and methods
//
//   - Stats: the counters of every step, sources first and the pipe's
//     last step last.
//   - Wall: the time the passes of the pipe's last step ran, the time its
//     consumer spent in them.
//   - Waited: how long the consumer waited for data, the last step's Busy.
//     The rest of Wall, the last step's Wait, is the consumer's own time
//     (training).
//   - Slowest: the step with the largest Self, the first of equals, when
//     the input is the bottleneck (InputBound); the zero step when
//     it is not, or when no step has any time of its own.
//   - InputBound() reports whether the consumer waited for data at least
//     5% of its time; WaitedFraction() is Waited / Wall.
//   - String() formats the report (Print it).
func (st Stats) Report() bottleneck {
	last := st.Last()
	r := bottleneck{Stats: st, Wall: last.Wall, Waited: last.Busy}
	if i := r.slowest(); i >= 0 {
		r.Slowest = st[i]
	}
	return r
}

// slowest returns the index of the step with the largest Self, -1 when the
// input is not the bottleneck or no step has any Self.
func (r bottleneck) slowest() int {
	if !r.InputBound() {
		return -1
	}
	at := -1
	for i, s := range r.Stats {
		if s.Self > 0 && (at < 0 || s.Self > r.Stats[at].Self) {
			at = i
		}
	}
	return at
}

// InputBound reports whether the input is the bottleneck: the consumer
// waited for data at least 5% of its time. When it did not, speeding up
// any step would hardly speed up training.
func (r bottleneck) InputBound() bool { return r.Wall > 0 && r.WaitedFraction() >= boundShare }

// WaitedFraction returns Waited / Wall: the part of its time the consumer
// spent waiting for data (0 before any time passed).
func (r bottleneck) WaitedFraction() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Waited) / float64(r.Wall)
}

// String formats the report: a line for the consumer's wait, a line for
// the slowest step, or for an input that is not the bottleneck, and the
// steps' table, one step per line, the slowest marked: the one printed
// form of a Stats snapshot. Times have four significant digits.
func (r bottleneck) String() string {
	var b strings.Builder
	switch s := r.Slowest; {
	case r.Wall <= 0:
		b.WriteString("waited for data: no pass has run\n")
		b.WriteString("slowest step:    none measured\n")
	case !r.InputBound():
		fmt.Fprintf(&b, "waited for data: %v of %v (%.0f%%)\n", short(r.Waited), short(r.Wall), 100*r.WaitedFraction())
		fmt.Fprintf(&b, "the input is not the bottleneck: the loop waited for data %.1f%% of the time\n", 100*r.WaitedFraction())
	default:
		fmt.Fprintf(&b, "waited for data: %v of %v (%.0f%%)\n", short(r.Waited), short(r.Wall), 100*r.WaitedFraction())
		if s.Self > 0 {
			frac := 0.0
			if s.Wall > 0 {
				frac = float64(s.Self) / float64(s.Wall)
			}
			fmt.Fprintf(&b, "slowest step:    %s, %v of its own (%.0f%% of its wall)\n", s.Name, short(s.Self), 100*frac)
		} else {
			b.WriteString("slowest step:    none measured\n")
		}
	}
	b.WriteString(r.Stats.table(r.slowest()))
	return b.String()
}
