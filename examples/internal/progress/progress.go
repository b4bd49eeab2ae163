// Package progress draws a one-line progress bar for the examples' long
// loops, with throughput and time left.
//
// On a terminal the bar redraws in place (carriage return) at most ten
// times a second; on anything else (a log file, a test's output) it prints
// a line at every quarter and when it finishes, so logs stay readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Bar is a progress bar for a known amount of work. It is not safe for
// concurrent use.
type Bar struct {
	w        io.Writer
	label    string
	unit     string
	total    int
	done     int
	start    time.Time
	last     time.Time
	live     bool
	quarter  int // last quarter printed in line mode
	finished bool
	width    int
}

// New returns a bar for total units of work (samples, steps, ...) that
// writes to w. unit names the work in the rate ("samples" prints
// "samples/s").
func New(w io.Writer, label string, total int, unit string) *Bar {
	now := time.Now()
	return &Bar{w: w, label: label, unit: unit, total: total, start: now, live: isTerminal(w), width: 30}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Add records n more units of work done.
func (b *Bar) Add(n int) {
	b.done += n
	if b.live {
		if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond {
			b.last = now
			fmt.Fprintf(b.w, "\r%s", b.line(now))
		}
		return
	}
	if b.total > 0 {
		if q := 4 * b.done / b.total; q > b.quarter && q < 4 {
			b.quarter = q
			fmt.Fprintln(b.w, b.line(time.Now()))
		}
	}
}

// Finish draws the bar a last time and ends its line. It returns the
// elapsed time and the rate in units per second.
func (b *Bar) Finish() (time.Duration, float64) {
	now := time.Now()
	el := now.Sub(b.start)
	if !b.finished {
		b.finished = true
		if b.live {
			fmt.Fprintf(b.w, "\r%s\n", b.line(now))
		} else {
			fmt.Fprintln(b.w, b.line(now))
		}
	}
	return el, rate(b.done, el)
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// line renders the bar, for example
// "epoch 1/3 [=========>          ]  45% 27008/60000 12345 samples/s ETA 3s".
func (b *Bar) line(now time.Time) string {
	el := now.Sub(b.start)
	r := rate(b.done, el)
	var sb strings.Builder
	sb.WriteString(b.label)
	if b.total > 0 {
		frac := min(float64(b.done)/float64(b.total), 1)
		fill := int(frac * float64(b.width))
		sb.WriteString(" [")
		sb.WriteString(strings.Repeat("=", fill))
		if fill < b.width {
			sb.WriteString(">")
			sb.WriteString(strings.Repeat(" ", b.width-fill-1))
		}
		fmt.Fprintf(&sb, "] %3.0f%% %d/%d", 100*frac, b.done, b.total)
	} else {
		fmt.Fprintf(&sb, " %d", b.done)
	}
	fmt.Fprintf(&sb, " %.0f %s/s", r, b.unit)
	if b.finished {
		fmt.Fprintf(&sb, " in %s", el.Round(10*time.Millisecond))
	} else if b.total > 0 && r > 0 && b.done < b.total {
		left := time.Duration(float64(b.total-b.done) / r * float64(time.Second))
		fmt.Fprintf(&sb, " ETA %s", left.Round(time.Second))
	}
	return sb.String()
}
