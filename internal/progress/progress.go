// Package progress draws progress bars for tensorfeed's command-line
// programs (the examples and cmd/tensorfeed): a label, a count out of a
// total (or of an unknown total), the rate in the work's own unit and the
// time left.
//
// # Terminal or not
//
// The bars are drawn by github.com/vbauerster/mpb/v8, and only when the
// writer is a terminal: there they redraw in place, several bars of a
// [Group] at once, each with its rate and ETA. On anything else (a pipe,
// a log file, a test's buffer) nothing is drawn while the work runs, and
// [Bar.Finish] writes one summary line,
//
//	epoch 1/3: 59968/59968 samples in 2.31s, 25960 samples/s
//
// so logs stay readable; the [Quiet] option drops that line too.
//
// # Use
//
//	bar := progress.New(os.Stderr, "epoch 1/3", 60000, "samples")
//	for ... {
//		bar.Add(len(batch))
//	}
//	elapsed, rate := bar.Finish()
//
// Finish must be called once the work stops, also when it stops early on
// an error: on a terminal the bar's drawing goroutines end there.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

type config struct {
	quiet    bool
	terminal *bool
	refresh  time.Duration
}

// Option configures a [Group] (or the group of one bar that [New] makes).
type Option = option.Option[config]

// Quiet drops the summary line that [Bar.Finish] writes when the writer is
// not a terminal: the bars are then silent there. It changes nothing on a
// terminal.
func Quiet() Option { return option.New(func(c *config) { c.quiet = true }) }

// Terminal overrides the detection of a terminal: true draws live bars on
// any writer (escape sequences included), false writes only the summary
// lines even to a terminal.
func Terminal(live bool) Option { return option.New(func(c *config) { c.terminal = &live }) }

// IsTerminal reports whether w is a terminal (a character device), where
// bars are drawn live.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Group draws several bars at once, one line each, on one writer. It is
// safe for concurrent use.
type Group struct {
	w     io.Writer
	cfg   config
	live  bool
	p     *mpb.Progress // nil unless live
	mu    sync.Mutex
	bars  []*Bar
	ended bool
}

// NewGroup returns a group of bars that writes to w. Call [Group.Wait]
// when the work is done.
func NewGroup(w io.Writer, opts ...Option) *Group {
	if w == nil {
		w = io.Discard
	}
	g := &Group{w: w, cfg: config{refresh: 150 * time.Millisecond}}
	option.Apply(&g.cfg, opts)
	g.live = IsTerminal(w)
	if g.cfg.terminal != nil {
		g.live = *g.cfg.terminal
	}
	if g.live {
		// The drawing goroutines start here and end in Wait.
		g.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(100), mpb.WithAutoRefresh(),
			mpb.WithRefreshRate(g.cfg.refresh))
	}
	return g
}

// Bar adds a bar for total units of work (samples, records, steps...);
// total <= 0 means unknown: the bar then counts and shows the rate without
// a percentage or ETA. unit names the work in the count and the rate
// ("samples" gives "samples/s").
func (g *Group) Bar(label string, total int64, unit string) *Bar {
	b := &Bar{g: g, label: label, unit: unit, start: time.Now()}
	b.total.Store(max(total, 0))
	if g.live {
		b.mb = g.p.New(max(total, 0), filler(total), mpb.BarFillerTrim(),
			mpb.PrependDecorators(decor.Name(label, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(b.decorators(total)...))
	}
	g.mu.Lock()
	g.bars = append(g.bars, b)
	g.mu.Unlock()
	return b
}

func filler(total int64) mpb.BarFillerBuilder {
	if total <= 0 {
		return mpb.SpinnerStyle()
	}
	return mpb.BarStyle().Lbound("[").Filler("=").Tip(">").Padding(" ").Rbound("]")
}

// decorators returns what follows a live bar: the count, the percentage,
// the rate, and the ETA (the time taken once the bar is done).
func (b *Bar) decorators(total int64) []decor.Decorator {
	perSec := func(s string) string { return s + " " + b.unit + "/s" }
	rate := decor.Meta(decor.NewAverageSpeed(0, "%.0f", b.start, decor.WCSyncSpace), perSec)
	eta := decor.NewAverageETA(decor.ET_STYLE_GO, b.start, nil)
	// The bar completes as soon as the count reaches the total, which may be
	// before Finish: the time taken is read here, when the bar draws it.
	last := decor.Any(func(s decor.Statistics) string {
		switch {
		case s.Completed || s.Aborted:
			return "in " + time.Since(b.start).Round(10*time.Millisecond).String()
		case total <= 0:
			return ""
		}
		left, _ := eta.Decor(s)
		return "ETA " + left
	}, decor.WC{C: decor.DextraSpace})
	if total <= 0 {
		return []decor.Decorator{decor.CurrentNoUnit("%d "+b.unit, decor.WCSyncSpace), rate, last}
	}
	return []decor.Decorator{
		decor.CountersNoUnit("%d/%d "+b.unit, decor.WCSyncSpace),
		decor.Percentage(decor.WCSyncSpace),
		rate,
		last,
	}
}

// Wait finishes the bars not finished yet (see [Bar.Finish]) and, on a
// terminal, waits for the last drawing. The group cannot be used after.
func (g *Group) Wait() {
	g.mu.Lock()
	bars := g.bars
	ended := g.ended
	g.ended = true
	g.mu.Unlock()
	if ended {
		return
	}
	for _, b := range bars {
		b.finish()
	}
	if g.p != nil {
		g.p.Wait()
	}
}

// Bar is one bar. Add is safe for concurrent use.
type Bar struct {
	g        *Group
	own      bool // the bar's group is its own (New), waited for by Finish
	label    string
	unit     string
	start    time.Time
	done     atomic.Int64
	total    atomic.Int64
	mb       *mpb.Bar // nil unless live
	once     sync.Once
	elapsed  time.Duration
	finished atomic.Bool
}

// New returns a bar of its own group: for total units of work (total <= 0:
// unknown), named label, counted in unit, written to w. Finish ends it.
func New(w io.Writer, label string, total int64, unit string, opts ...Option) *Bar {
	b := NewGroup(w, opts...).Bar(label, total, unit)
	b.own = true
	return b
}

// Add records n more units of work done.
func (b *Bar) Add(n int) {
	b.done.Add(int64(n))
	if b.mb != nil && !b.finished.Load() {
		b.mb.IncrBy(n)
	}
}

// SetTotal sets the total once it is known (a count read from an index,
// say); 0 makes it unknown.
func (b *Bar) SetTotal(total int64) {
	b.total.Store(max(total, 0))
	if b.mb != nil && !b.finished.Load() {
		b.mb.SetTotal(max(total, 0), false)
	}
}

// Finish ends the bar: on a terminal it is drawn a last time (stopped
// where it is if the work fell short of its total); elsewhere the summary
// line is written unless [Quiet]. It returns the time since the bar was
// made and the rate in units per second. Calling it again returns the same
// values and writes nothing.
func (b *Bar) Finish() (elapsed time.Duration, rate float64) {
	b.finish()
	if b.own {
		b.g.Wait()
	}
	return b.elapsed, b.rate()
}

func (b *Bar) rate() float64 {
	if b.elapsed <= 0 {
		return 0
	}
	return float64(b.done.Load()) / b.elapsed.Seconds()
}

func (b *Bar) finish() {
	b.once.Do(func() {
		b.elapsed = time.Since(b.start)
		b.finished.Store(true)
		done, total := b.done.Load(), b.total.Load()
		if b.mb != nil {
			if total <= 0 || done >= total {
				b.mb.SetTotal(-1, true) // complete at the count reached
			} else {
				b.mb.Abort(false) // keep the bar where it stopped
			}
			return
		}
		if b.g.cfg.quiet {
			return
		}
		count := fmt.Sprint(done)
		if total > 0 {
			count = fmt.Sprintf("%d/%d", done, total)
		}
		fmt.Fprintf(b.g.w, "%s: %s %s in %v, %.0f %s/s\n", b.label, count, b.unit,
			b.elapsed.Round(10*time.Millisecond), b.rate(), b.unit)
	})
}
