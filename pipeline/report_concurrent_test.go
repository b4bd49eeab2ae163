package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// trainSlowly drains one pass of r, sleeping 1ms after every k samples as
// a training loop that is slower than its input.
func trainSlowly[T any](t *testing.T, r source.Reader[T], k int) {
	t.Helper()
	i := 0
	for _, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if i++; i%k == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// TestSlowConsumerBehindGoroutines feeds a training loop that sleeps 1ms
// per 256 samples from a source that makes them in microseconds, through
// Buffered and ParallelMap. Their goroutines spend nearly all their time
// blocked, waiting for the loop to take what they made: that is none of
// the source's own time, which stays a small part of its wall.
func TestSlowConsumerBehindGoroutines(t *testing.T) {
	const n, k = 256 * 40, 256
	type run struct {
		name  string
		stats func() pipeline.Stats
	}
	var runs []run
	{
		p := pipeline.Batch(pipeline.From(count(n)), k, batch.Keep).Buffered(2)
		trainSlowly(t, p, 1)
		runs = append(runs, run{"batch, buffered", p.Stats})
	}
	{
		p := pipeline.From(count(n)).Buffered(64)
		trainSlowly(t, p, k)
		runs = append(runs, run{"buffered", p.Stats})
	}
	{
		p := pipeline.ParallelMap(pipeline.From(count(n)), 2, func(x int) (int, error) { return x, nil })
		trainSlowly(t, p, k)
		runs = append(runs, run{"parallel-map", p.Stats})
	}
	for _, r := range runs {
		st := r.stats()
		src := byName(t, st, "source")[0]
		if src.Wall < 30*time.Millisecond || src.Self > src.Wall/4 || src.Busy > src.Wall/4 {
			t.Errorf("%s: source self %v, busy %v of wall %v; want a small part\n%v", r.name, src.Self, src.Busy, src.Wall, st.Report())
		}
	}
}
