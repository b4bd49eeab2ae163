package pipeline

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
)

// fakeClock is a clock that moves only when a test's code says so: the
// time a step "takes" is what it adds. It serves synchronous pipelines,
// which run on one goroutine.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// useFakeClock makes the counters read a fake clock until the test ends.
func useFakeClock(t *testing.T) *fakeClock {
	c := &fakeClock{t: time.Unix(1e9, 0)}
	old := now
	now = c.now
	t.Cleanup(func() { now = old })
	return c
}

// costly yields 0..n-1, each taking cost(i) of the fake clock.
func costly(c *fakeClock, n int, cost func(i int) time.Duration) source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range n {
				c.advance(cost(i))
				if !yield(i, nil) {
					return
				}
			}
		}
	})
}

// chain builds source (src per sample) -> map (mp per sample) -> batch of
// 4 and returns it with the consumer's cost per batch.
func chain(c *fakeClock, n int, src, mp func(i int) time.Duration, opts ...Option) *Pipe[batch.Batch[int]] {
	p := From(costly(c, n, src), opts...)
	m := Map(p, func(i int) int { c.advance(mp(i)); return i })
	return Batch(m, 4, batch.Keep)
}

func consume(c *fakeClock, p *Pipe[batch.Batch[int]], per time.Duration) {
	for _, err := range p.All(context.Background()) {
		if err != nil {
			panic(err)
		}
		c.advance(per)
	}
}

// TestStatsExactWhenSamplesAreSlow gives every sample several
// microseconds: every interval is timed, and Busy and Wait are exact.
func TestStatsExactWhenSamplesAreSlow(t *testing.T) {
	c := useFakeClock(t)
	const n = 400
	us := time.Microsecond
	p := chain(c, n, func(int) time.Duration { return 30 * us }, func(int) time.Duration { return 10 * us })
	consume(c, p, 50*us)
	st := p.Stats()
	wall := n*40*us + n/4*50*us
	want := []struct {
		name string
		busy time.Duration
	}{{"source", n * 30 * us}, {"map", n * 40 * us}, {"batch", n * 40 * us}}
	for i, w := range want {
		s := st[i]
		if s.Name != w.name || s.Wall != wall || s.Busy != w.busy || s.Wait != wall-w.busy {
			t.Errorf("%s: wall %v busy %v wait %v; want %s wall %v busy %v", s.Name, s.Wall, s.Busy, s.Wait, w.name, wall, w.busy)
		}
	}
}

// TestStatsBusyGrowsDownstream runs synchronous chains of fast steps,
// whose times are sampled: in every one the inclusive Busy of a step is
// at least that of the step before it, and each estimate is close to the
// truth.
func TestStatsBusyGrowsDownstream(t *testing.T) {
	c := useFakeClock(t)
	const n = 100000
	for seed := range uint64(10) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			jitter := func(mean time.Duration) func(int) time.Duration {
				costs := make([]time.Duration, n)
				for i := range costs {
					costs[i] = time.Duration(r.ExpFloat64() * float64(mean))
				}
				return func(i int) time.Duration { return costs[i] }
			}
			srcMean := time.Duration(50+r.IntN(400)) * time.Nanosecond
			mapMean := time.Duration(5+r.IntN(100)) * time.Nanosecond
			src, mp := jitter(srcMean), jitter(mapMean)
			var srcTotal, mapTotal time.Duration
			for i := range n {
				srcTotal += src(i)
				mapTotal += mp(i)
			}
			p := chain(c, n, src, mp)
			consume(c, p, time.Duration(r.IntN(2000))*time.Nanosecond)
			st := p.Stats()
			for i := 1; i < len(st); i++ {
				if st[i].Busy < st[i-1].Busy {
					t.Errorf("%s busy %v < %s busy %v", st[i].Name, st[i].Busy, st[i-1].Name, st[i-1].Busy)
				}
			}
			for _, w := range []struct {
				i    int
				busy time.Duration
			}{{0, srcTotal}, {1, srcTotal + mapTotal}} {
				if got := st[w.i].Busy; got < w.busy*85/100 || got > w.busy*115/100 {
					t.Errorf("%s busy %v, true busy %v", st[w.i].Name, got, w.busy)
				}
			}
		})
	}
}

// TestStatsSubAgreesWithPassLog checks that the per-epoch difference of
// two Stats snapshots equals what the per-pass log entries say, for every
// step and every epoch, in a sampled (fast) chain.
func TestStatsSubAgreesWithPassLog(t *testing.T) {
	c := useFakeClock(t)
	core, logs := observer.New(zapcore.DebugLevel)
	r := rand.New(rand.NewPCG(3, 3))
	cost := func(int) time.Duration { return time.Duration(r.IntN(300)) * time.Nanosecond }
	p := chain(c, 5000, cost, cost)
	var subs []Stats
	for _, pass := range p.Epochs(tensorfeed.WithLogger(context.Background(), zap.New(core)), 3) {
		before := p.Stats()
		for range pass {
			c.advance(time.Duration(r.IntN(1000)) * time.Nanosecond)
		}
		subs = append(subs, p.Stats().Sub(before))
	}
	entries := logs.FilterMessage("pass done").All()
	if len(entries) != 9 {
		t.Fatalf("%d pass entries, want 9", len(entries))
	}
	for _, e := range entries {
		f := e.ContextMap()
		ep := int(f["epoch"].(int64))
		var s stepStats
		for _, x := range subs[ep] {
			if x.Name == f["stage"] {
				s = x
			}
		}
		if s.Busy != f["busy"].(time.Duration) || s.Wall != f["wall"].(time.Duration) || s.Wait != f["wait"].(time.Duration) {
			t.Errorf("epoch %d %s: Sub says wall %v busy %v wait %v, the log %v %v %v", ep, s.Name,
				s.Wall, s.Busy, s.Wait, f["wall"], f["busy"], f["wait"])
		}
	}
}
