package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestReportOfSynchronousChain runs source (30µs per sample) -> map (10µs)
// -> batch of 4 (nothing) for a consumer that trains 50µs per batch, on the
// fake clock: every number of the report is known exactly.
func TestReportOfSynchronousChain(t *testing.T) {
	c := useFakeClock(t)
	const n = 400
	us := time.Microsecond
	p := chain(c, n, func(int) time.Duration { return 30 * us }, func(int) time.Duration { return 10 * us })
	consume(c, p, 50*us)
	r := p.Stats().Report()

	if r.Waited != n*40*us || r.Wall != n*40*us+n/4*50*us {
		t.Errorf("waited %v of %v, want %v of %v", r.Waited, r.Wall, n*40*us, n*40*us+n/4*50*us)
	}
	if got, want := r.WaitedFraction(), 16.0/21; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("WaitedFraction %v, want %v", got, want)
	}
	for i, want := range []time.Duration{n * 30 * us, n * 10 * us, 0} {
		if s := r.Stats[i]; s.Self != want {
			t.Errorf("%s: self %v, want %v", s.Name, s.Self, want)
		}
	}
	var sum time.Duration
	for _, s := range r.Stats {
		sum += s.Self
	}
	if sum != r.Waited {
		t.Errorf("the Self times add up to %v, the last step's Busy is %v", sum, r.Waited)
	}
	if r.Slowest.Name != "source" {
		t.Errorf("slowest %q, want source", r.Slowest.Name)
	}
	want := `waited for data: 16ms of 21ms (76%)
slowest step:    source, 12ms of its own (57% of its wall)
stage   passes  samples  skipped  wall  busy  wait  self  per s
source       1      400        0  21ms  12ms   9ms  12ms  19048  <- slowest
map          1      400        0  21ms  16ms   5ms   4ms  19048
batch        1      100        0  21ms  16ms   5ms    0s   4762
`
	if got := r.String(); got != want {
		t.Errorf("String:\n%s\nwant:\n%s", got, want)
	}
}

// TestReportPerEpoch reports every epoch from the difference of two
// snapshots: the slowest step is the one that was slow in that epoch.
func TestReportPerEpoch(t *testing.T) {
	c := useFakeClock(t)
	us := time.Microsecond
	slowMap := false
	src := func(int) time.Duration {
		if slowMap {
			return us
		}
		return 20 * us
	}
	mp := func(int) time.Duration {
		if slowMap {
			return 20 * us
		}
		return us
	}
	p := chain(c, 100, src, mp)
	var slowest []string
	for epoch, pass := range p.Epochs(context.Background(), 2) {
		slowMap = epoch == 1
		before := p.Stats()
		for _, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			c.advance(10 * us)
		}
		r := p.Stats().Sub(before).Report()
		if r.Waited != 100*21*us || r.Wall != 100*21*us+25*10*us {
			t.Errorf("epoch %d: waited %v of %v", epoch, r.Waited, r.Wall)
		}
		slowest = append(slowest, r.Slowest.Name)
	}
	if strings.Join(slowest, " ") != "source map" {
		t.Errorf("slowest per epoch %v, want [source map]", slowest)
	}
}

func TestReportOfNothing(t *testing.T) {
	r := Stats{}.Report()
	if r.Slowest.Name != "" || r.Waited != 0 || r.WaitedFraction() != 0 {
		t.Errorf("empty report %+v", r)
	}
	want := "waited for data: no pass has run\nslowest step:    none measured\n"
	if got := r.String(); !strings.HasPrefix(got, want) {
		t.Errorf("String:\n%s", got)
	}
}

func TestShort(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{
		{999, 999},
		{12345, 12350},
		{1234567, 1235000},
		{1234567890, 1235000000},
		{-1234567, -1235000},
		{0, 0},
	} {
		if got := short(tt.in); got != tt.want {
			t.Errorf("short(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
