package pipeline_test

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestStatsCounts(t *testing.T) {
	p := pipeline.Map(pipeline.From(count(1000)).Filter(func(x int) bool { return x%4 == 0 }),
		func(x int) int { return x })
	for range 3 {
		if _, err := source.Count(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	st := p.Stats()
	want := []struct {
		name    string
		samples int64
	}{{"source", 3000}, {"filter", 750}, {"map", 750}}
	if len(st) != len(want) {
		t.Fatalf("%d steps: %v", len(st), st)
	}
	for i, w := range want {
		s := st[i]
		if s.Name != w.name || s.Samples != w.samples || s.Passes != 3 || s.Errors != 0 {
			t.Errorf("step %d: %+v, want %s with %d samples in 3 passes", i, s, w.name, w.samples)
		}
		if s.Wall <= 0 || s.Busy < 0 || s.Wait < 0 || s.Busy+s.Wait != s.Wall {
			t.Errorf("%s: wall %v busy %v wait %v", s.Name, s.Wall, s.Busy, s.Wait)
		}
		if s.Timed <= 0 || s.Timed > s.Samples {
			t.Errorf("%s: timed %d of %d", s.Name, s.Timed, s.Samples)
		}
	}
	// Cheap samples are timed on a sample only.
	if s := st[0]; s.Timed*10 > s.Samples {
		t.Errorf("source: %d of %d samples timed; want about 1 in 64", s.Timed, s.Samples)
	}
}

// sleepy yields n samples, sleeping d before each.
func sleepy(n int, d time.Duration) source.Reader[int] {
	return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range n {
				time.Sleep(d)
				if !yield(i, nil) {
					return
				}
			}
		}
	})
}

// TestBusyAndWait checks what the two times mean, with sleeps far longer
// than any overhead: a slow source makes every step busy, a slow consumer
// makes every step wait.
func TestBusyAndWait(t *testing.T) {
	ctx := context.Background()

	slowSource := pipeline.Map(pipeline.From(sleepy(20, 2*time.Millisecond)), func(x int) int { return x })
	if _, err := source.Count(ctx, slowSource); err != nil {
		t.Fatal(err)
	}
	for _, s := range slowSource.Stats() {
		if s.BusyFraction() < 0.8 || s.Timed != s.Samples || s.Wall < 40*time.Millisecond {
			t.Errorf("slow source: %s busy %.2f, timed %d of %d, wall %v", s.Name, s.BusyFraction(), s.Timed, s.Samples, s.Wall)
		}
	}

	slowConsumer := pipeline.Map(pipeline.From(count(20)), func(x int) int { return x })
	for _, err := range slowConsumer.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	for _, s := range slowConsumer.Stats() {
		if s.BusyFraction() > 0.2 || s.Wall < 40*time.Millisecond || s.Samples != 20 {
			t.Errorf("slow consumer: %s busy %.2f, wall %v, samples %d", s.Name, s.BusyFraction(), s.Wall, s.Samples)
		}
	}
}

func TestStatsWhileRunning(t *testing.T) {
	p := pipeline.From(endless()).Buffered(4).Filter(func(x int) bool { return x%2 == 0 })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, err := range p.All(ctx) {
			if err != nil {
				return
			}
		}
	}()
	var seen int64
	for seen < 10000 {
		seen = p.Stats().Last().Samples // races with the pass: -race checks it
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	if st := p.Stats(); st.Last().Passes != 1 || st[0].Samples < st.Last().Samples {
		t.Fatalf("after cancel: %v", st)
	}
}

func TestStatsSubAndReport(t *testing.T) {
	p := pipeline.From(count(10)).Take(4)
	source.Count(context.Background(), p)
	before := p.Stats()
	source.Count(context.Background(), p)
	d := p.Stats().Sub(before)
	if d[0].Passes != 1 || d.Last().Samples != 4 || d.Last().Name != "take" {
		t.Fatalf("Sub: %+v", d)
	}
	s := p.Stats().Report().String()
	if !strings.Contains(s, "\nsource ") || !strings.Contains(s, "\ntake ") || !strings.Contains(s, "\nstage ") {
		t.Fatalf("Report:\n%s", s)
	}
	if (pipeline.Stats{}).Last() != (pipeline.Stats{{}})[0] {
		t.Fatal("Last of empty Stats")
	}
}

func TestWithoutStats(t *testing.T) {
	p := pipeline.From(count(10), pipeline.WithoutStats()).Take(4)
	got, err := source.Collect(context.Background(), p)
	if err != nil || !slices.Equal(got, seq(0, 4)) {
		t.Fatalf("got %v %v", got, err)
	}
	for _, s := range p.Stats() {
		if s.Samples != 0 || s.Passes != 0 {
			t.Fatalf("counted without stats: %+v", s)
		}
	}
}

func TestLogs(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	p := pipeline.From(failAfter(3, errBoom)).Take(10)
	for _, pass := range p.Epochs(tensorfeed.WithLogger(context.Background(), zap.New(core)), 2) {
		for range pass {
		}
	}
	passes := logs.FilterMessage("pass done").All()
	if len(passes) != 4 { // two steps, two epochs
		t.Fatalf("%d pass entries, want 4", len(passes))
	}
	f := passes[3].ContextMap()
	if f["stage"] != "take" || f["epoch"] != int64(1) || f["samples"] != int64(3) || !strings.Contains(f["error"].(string), "boom") {
		t.Fatalf("pass entry: %v", f)
	}
	epochs := logs.FilterMessage("epoch done").All()
	if len(epochs) != 2 || epochs[0].Level != zapcore.InfoLevel {
		t.Fatalf("epoch entries: %v", epochs)
	}
	f = epochs[1].ContextMap()
	stages, _ := f["stages"].([]any)
	if f["epoch"] != int64(1) || f["samples"] != int64(3) || len(stages) != 2 {
		t.Fatalf("epoch entry: %v", f)
	}
	if w, ok := f["waited"].(time.Duration); !ok || w <= 0 || f["slowest"] == nil {
		t.Fatalf("epoch entry without its report: %v", f)
	}
	if first := stages[0].(map[string]any); first["stage"] != "source" || first["samples"] != int64(3) || first["passes"] != int64(1) {
		t.Fatalf("epoch entry's stages: %v", stages)
	}

	// Without a logger in the context nothing is logged, and the global
	// logger is never used.
	globalCore, globalLogs := observer.New(zapcore.DebugLevel)
	undo := zap.ReplaceGlobals(zap.New(globalCore))
	defer undo()
	q := pipeline.From(count(3))
	if err := loopEpochs(context.Background(), q, 1, func(int, int) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if globalLogs.Len() != 0 {
		t.Fatalf("global logger used: %v", globalLogs.All())
	}
}

// A reader that ignores the end of its pass must not make the counters call
// the consumer again (a range loop panics when that happens).
func TestStatsRudeUpstream(t *testing.T) {
	rude := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range 10 {
				yield(i, nil) // ignores false
			}
			yield(0, errBoom)
		}
	})
	p := pipeline.From(rude)
	n := 0
	for range p.All(context.Background()) {
		if n++; n == 3 {
			break
		}
	}
	if got := p.Stats()[0].Samples; got != 3 {
		t.Fatalf("counted %d samples, want 3", got)
	}
}

// skipping is a reader that skips 3 bad records every pass and counts
// them, as a format reader with a source.SkipPolicy does.
type skipping struct {
	source.Reader[int]
	n *atomic.Int64
}

func (s skipping) All(ctx context.Context) iter.Seq2[int, error] {
	s.n.Add(3)
	return s.Reader.All(ctx)
}

func (s skipping) Skipped() int64 { return s.n.Load() }

func TestStatsShowSkipped(t *testing.T) {
	p := pipeline.From[int](skipping{count(5), new(atomic.Int64)}).Take(4)
	var before pipeline.Stats
	for range 2 {
		before = p.Stats()
		for _, err := range p.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	st := p.Stats()
	if st[0].Skipped != 6 || st[1].Skipped != 0 {
		t.Errorf("skipped %d and %d, want 6 for the source and 0 for take", st[0].Skipped, st[1].Skipped)
	}
	if d := st.Sub(before); d[0].Skipped != 3 {
		t.Errorf("Sub: skipped %d in the last pass, want 3", d[0].Skipped)
	}
	tab := st.Report().String()
	_, rows, _ := strings.Cut(tab, "\nstage ")
	if !strings.Contains(rows, "skipped") || !strings.Contains(strings.Split(rows, "\n")[1], " 6 ") {
		t.Errorf("table without the skipped count:\n%s", tab)
	}
}
