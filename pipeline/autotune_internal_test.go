package pipeline

import (
	"testing"
	"time"
)

// climb runs periods of the gate of a budget of cores whose step maps
// rate(width) samples a second, and returns the widths it chose.
func climb(cores, periods int, rate func(width int) float64) []int {
	g := newGate(newTuning(cores, 1))
	now := time.Unix(0, 0)
	g.count(now) // opens the first period
	var widths []int
	for range periods {
		now = now.Add(50 * time.Millisecond)
		g.done = int64(rate(g.width)*0.05) - 1
		g.count(now)
		widths = append(widths, g.width)
	}
	return widths
}

// mostly returns the share of widths equal to w.
func mostly(widths []int, w int) float64 {
	n := 0
	for _, v := range widths {
		if v == w {
			n++
		}
	}
	return float64(n) / float64(len(widths))
}

// TestGateClimbs: a step whose throughput grows with its workers keeps
// them all; one held back by its consumer (throughput flat) gives them
// back, down to one; one that saturates at 2 of 4 settles at 2. Probes
// away from the best width are undone the next period.
func TestGateClimbs(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate func(int) float64
		want int
	}{
		{"compute-bound", func(w int) float64 { return 10000 * float64(w) }, 4},
		{"consumer-bound", func(int) float64 { return 10000 }, 1},
		{"saturates at 2", func(w int) float64 { return 10000 * float64(min(w, 2)) }, 2},
	} {
		widths := climb(4, 200, tc.rate)
		t.Logf("%s: %v", tc.name, widths[:40])
		if share := mostly(widths[20:], tc.want); share < 0.8 {
			t.Errorf("%s: width %d in %.0f%% of the periods after the first 20, want 80%%: %v", tc.name, tc.want, 100*share, widths)
		}
		for i, w := range widths {
			if w < 1 || w > 4 {
				t.Fatalf("%s: width %d at period %d", tc.name, w, i)
			}
		}
	}
}

// TestGateIdleBetweenPasses: the time between two passes of the step,
// when none runs, is not part of a period, so a step that mapped 128
// samples in 40 ms of passes has their rate however long the consumer
// spent between them.
func TestGateIdleBetweenPasses(t *testing.T) {
	g := newGate(newTuning(4, 1))
	t0 := time.Unix(0, 0)
	g.begin(t0)
	g.count(t0) // opens the first period
	g.done = 63
	g.end(t0.Add(20 * time.Millisecond))
	g.begin(t0.Add(10 * time.Second)) // a plain loop ran meanwhile
	g.count(t0.Add(10*time.Second + 20*time.Millisecond))
	if g.lastW != 4 || g.rate < 1500 {
		t.Fatalf("first period: width %d, rate %.0f/s; want 4 and 64 samples in 40 ms (1600/s)", g.lastW, g.rate)
	}
	g.end(t0.Add(11 * time.Second))
}
