package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// byName returns the step called name in st, as a Stats of one step.
func byName(t *testing.T, st pipeline.Stats, name string) pipeline.Stats {
	t.Helper()
	for i, s := range st {
		if s.Name == name {
			return st[i : i+1]
		}
	}
	t.Fatalf("no step %q in\n%v", name, st)
	return nil
}

// TestSelfAcrossGoroutines checks the rule for Self of every kind of step:
// inputs read inside the step's pulls are subtracted, a relay between
// goroutines has none, a step whose work runs on other goroutines keeps
// what its busiest input does not explain. The slowest step is the slow
// source, not the steps that wait for it.
func TestSelfAcrossGoroutines(t *testing.T) {
	ctx := context.Background()
	id := func(x int) (int, error) { return x, nil }
	src := pipeline.From(sleepy(20, time.Millisecond)).Named("slow")
	labels := pipeline.From(count(20)).Named("labels")
	decoded := pipeline.ParallelMap(src.Buffered(2), 2, id).Named("decode")
	zipped := pipeline.Zip2(decoded, labels)
	fanned := pipeline.FanIn([]source.Reader[int]{pipeline.Map(zipped, func(z stage.Tuple2[int, int]) int { return z.A })}, 4).Named("all-pipes")
	mixed := pipeline.FanIn([]source.Reader[int]{fanned, count(5)}, 4).Named("mixed")
	p := pipeline.Map(mixed, func(x int) int { return x }).Named("last")
	if n, err := source.Count(ctx, p); err != nil || n != 25 {
		t.Fatalf("%d samples, %v", n, err)
	}
	st := p.Stats()
	busy := func(name string) time.Duration { return byName(t, st, name)[0].Busy }
	for _, tt := range []struct {
		name string
		want time.Duration
	}{
		{"slow", busy("slow")}, // a source: its Busy
		{"buffered", 0},        // a relay
		{"decode", max(0, busy("decode")-busy("buffered"))}, // work on other goroutines
		{"zip", max(0, busy("zip")-busy("decode")-busy("labels"))},
		{"all-pipes", 0}, // only pipes feed it: a relay
		{"mixed", max(0, busy("mixed")-busy("all-pipes"))}, // count(5) is measured here only
		{"last", max(0, busy("last")-busy("mixed"))},
	} {
		if got := byName(t, st, tt.name)[0].Self; got != tt.want {
			t.Errorf("%s: self %v, want %v", tt.name, got, tt.want)
		}
	}
	if r := p.Stats().Report(); r.Slowest.Name != "slow" || r.Waited != busy("last") {
		t.Errorf("slowest %q (want slow), waited %v (want last's busy %v)\n%v", r.Slowest.Name, r.Waited, busy("last"), r)
	}
}

// TestSlowestIsTheWorkers gives ParallelMap the slow work: its Self is
// most of its Busy, and it is the slowest step.
func TestSlowestIsTheWorkers(t *testing.T) {
	slow := func(x int) (int, error) { time.Sleep(2 * time.Millisecond); return x, nil }
	p := pipeline.Map(pipeline.ParallelMap(pipeline.From(count(40)), 2, slow).Named("decode"), func(x int) int { return x })
	if _, err := source.Count(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	r := p.Stats().Report()
	if d := byName(t, r.Stats, "decode")[0]; r.Slowest.Name != "decode" || d.Self < d.Busy*8/10 {
		t.Errorf("slowest %q, decode self %v of busy %v\n%v", r.Slowest.Name, d.Self, d.Busy, r)
	}
}
