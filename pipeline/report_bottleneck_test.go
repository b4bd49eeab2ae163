package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/batch"
)

// bigBatches builds source (src per sample) -> map (mp per sample) ->
// batch of size on the fake clock. With large batches most hand-overs are
// between the source and the map, so the chain's clock is sampled, and the
// consumer's long turns are rare among the events.
func bigBatches(c *fakeClock, n, size int, src, mp time.Duration) *Pipe[batch.Batch[int]] {
	p := From(costly(c, n, func(int) time.Duration { return src }))
	m := Map(p, func(i int) int { c.advance(mp); return i })
	return Batch(m, size, batch.Keep)
}

// TestSlowConsumerIsNotTheSourcesTime trains 2ms on every batch of 256
// samples that take 100ns to make: the loop waits for data about 1% of the
// time. The consumer's turns are none of the steps' own time, however the
// clock is sampled: the source's Self is its 100ns per sample, and the
// report says that the input is not the bottleneck.
func TestSlowConsumerIsNotTheSourcesTime(t *testing.T) {
	c := useFakeClock(t)
	const n, size = 256 * 200, 256
	p := bigBatches(c, n, size, 100*time.Nanosecond, 10*time.Nanosecond)
	consume(c, p, 2*time.Millisecond)
	r := p.Stats().Report()

	produce := n * 110 * time.Nanosecond
	wall := produce + n/size*2*time.Millisecond
	if r.Wall != wall || r.Waited != produce {
		t.Errorf("waited %v of %v, want %v of %v", r.Waited, r.Wall, produce, wall)
	}
	src := r.Stats[0]
	if want := n * 100 * time.Nanosecond; src.Self < want*8/10 || src.Self > want*12/10 {
		t.Errorf("source: self %v, busy %v of wall %v; want about %v\n%v", src.Self, src.Busy, src.Wall, want, r)
	}
	for _, s := range r.Stats {
		if s.Busy > produce+produce/5 {
			t.Errorf("%s: busy %v, more than the %v that producing took\n%v", s.Name, s.Busy, produce, r)
		}
	}
	if r.InputBound() {
		t.Errorf("input bound at %.1f%% waited\n%v", 100*r.WaitedFraction(), r)
	}
	got := r.String()
	if want := "the input is not the bottleneck: the loop waited for data 1.4% of the time\n"; !strings.Contains(got, want) {
		t.Errorf("String:\n%s\nwant a line %q", got, want)
	}
	if strings.Contains(got, "slowest") {
		t.Errorf("String names a slowest step while the input is not the bottleneck:\n%s", got)
	}
	for _, name := range []string{"source", "map", "batch"} {
		if !strings.Contains(got, "\n"+name+" ") {
			t.Errorf("String lacks the step %s:\n%s", name, got)
		}
	}
}

// TestSlowSourceIsTheBottleneck is the same chain with a source that takes
// 20µs per sample and a consumer that trains 100µs per batch: the loop
// waits nearly all the time, and the source is the slowest step.
func TestSlowSourceIsTheBottleneck(t *testing.T) {
	c := useFakeClock(t)
	const n, size = 256 * 20, 256
	p := bigBatches(c, n, size, 20*time.Microsecond, 10*time.Nanosecond)
	consume(c, p, 100*time.Microsecond)
	r := p.Stats().Report()
	if !r.InputBound() || r.Slowest.Name != "source" {
		t.Fatalf("input bound %v, slowest %q; want the source\n%v", r.InputBound(), r.Slowest.Name, r)
	}
	if want := n * 20 * time.Microsecond; r.Slowest.Self < want*95/100 || r.Slowest.Self > want {
		t.Errorf("source self %v, want about %v", r.Slowest.Self, want)
	}
	got := r.String()
	if !strings.Contains(got, "slowest step:    source,") || !strings.Contains(got, "<- slowest") ||
		strings.Contains(got, "not the bottleneck") {
		t.Errorf("String:\n%s", got)
	}
}

// TestSlowConsumerPerEpoch checks the same with the consumer's time spread
// unevenly: one long step every 10 batches. Every epoch's report (the
// difference of two snapshots) keeps the consumer's time out of the steps.
func TestSlowConsumerPerEpoch(t *testing.T) {
	c := useFakeClock(t)
	const n, size = 256 * 50, 256
	p := bigBatches(c, n, size, 50*time.Nanosecond, 50*time.Nanosecond)
	for epoch, pass := range p.Epochs(context.Background(), 3) {
		before := p.Stats()
		k := 0
		for _, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			if k++; k%10 == 0 {
				c.advance(20 * time.Millisecond)
			}
		}
		r := p.Stats().Sub(before).Report()
		produce := n * 100 * time.Nanosecond
		// A change of the clock's mode drops what no sample explains, a
		// stride at most: Waited is within a few percent.
		if r.Waited < produce*97/100 || r.Waited > produce || r.InputBound() {
			t.Errorf("epoch %d: waited %v, want about %v; input bound %v", epoch, r.Waited, produce, r.InputBound())
		}
		if s := r.Stats[0]; s.Busy > produce {
			t.Errorf("epoch %d: source busy %v, more than all the producing (%v)\n%v", epoch, s.Busy, produce, r)
		}
	}
}
