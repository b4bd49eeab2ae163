package pipeline

import (
	"fmt"
	"strings"
	"time"
)

// Report is a bottleneck report: the counters of every step of a pipe, how
// long the pipe's consumer (the training loop) waited for data, and which
// step spends the most time in its own code. It is what a profiler of
// tf.data shows, from the counters every pipe keeps anyway. Pipe.Report
// covers everything a pipe has run; Stats.Report covers any snapshot, such
// as the difference that is one epoch:
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
// for the next sample and its delivery. When it is a small part of Wall,
// data is ready whenever the training loop asks, and a faster pipeline
// would not make training faster. When it is a large part, the slowest
// step is where to start: it is the step with the largest Self (see
// StageStats), the time spent in the step's own code and not in the steps
// it reads. Behind Buffered the steps run on another goroutine while the
// consumer trains, so their Self can be large while Waited stays small:
// that is prefetching doing its job.
type Report struct {
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
	// Slowest is the step with the largest Self, the first of equals; the
	// zero StageStats when no step has any time of its own.
	Slowest StageStats
}

// Report returns the bottleneck report of the snapshot st (see Report).
func (st Stats) Report() Report {
	last := st.Last()
	r := Report{Stats: st, Wall: last.Wall, Waited: last.Busy}
	if i := st.slowest(); i >= 0 {
		r.Slowest = st[i]
	}
	return r
}

// slowest returns the index of the step with the largest Self, -1 when no
// step has any.
func (st Stats) slowest() int {
	at := -1
	for i, s := range st {
		if s.Self > 0 && (at < 0 || s.Self > st[at].Self) {
			at = i
		}
	}
	return at
}

// WaitedFraction returns Waited / Wall: the part of its time the consumer
// spent waiting for data (0 before any time passed).
func (r Report) WaitedFraction() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Waited) / float64(r.Wall)
}

// String formats the report: a line for the consumer's wait, a line for
// the slowest step, and the steps' table (see Stats.String), the slowest
// marked. Times have four significant digits.
func (r Report) String() string {
	var b strings.Builder
	if r.Wall <= 0 {
		b.WriteString("waited for data: no pass has run\n")
	} else {
		fmt.Fprintf(&b, "waited for data: %v of %v (%.0f%%)\n", short(r.Waited), short(r.Wall), 100*r.WaitedFraction())
	}
	if s := r.Slowest; s.Self > 0 {
		frac := 0.0
		if s.Wall > 0 {
			frac = float64(s.Self) / float64(s.Wall)
		}
		fmt.Fprintf(&b, "slowest step:    %s, %v of its own (%.0f%% of its wall)\n", s.Name, short(s.Self), 100*frac)
	} else {
		b.WriteString("slowest step:    none measured\n")
	}
	b.WriteString(r.Stats.table(r.Stats.slowest()))
	return b.String()
}
