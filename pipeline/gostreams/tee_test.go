package gostreams_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/extension"
	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/pipeline/gostreams"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestTeeSeesWhatTheConsumerSees(t *testing.T) {
	var side []int
	p := gostreams.Tee(pipeline.From(fixture.Count(500)), func(v int) error { side = append(side, v); return nil })
	for pass := range 2 {
		side = nil
		got, err := fixture.Pass(t, context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, lo.Range(500)) || !slices.Equal(side, got) {
			t.Fatalf("pass %d: consumer %d elements, side %d", pass, len(got), len(side))
		}
	}
	if st := p.Stats(); st.Last().Name != "tee" || st.Last().Samples != 1000 {
		t.Fatalf("stats: %v", st)
	}
}

func TestTeeFailures(t *testing.T) {
	tests := []struct {
		name  string
		p     *pipeline.Pipe[int]
		check func(error) bool
	}{
		{"side error", gostreams.Tee(pipeline.From(fixture.Endless(nil)), func(v int) error {
			if v == 20 {
				return errBoom
			}
			return nil
		}), func(err error) bool { return errors.Is(err, errBoom) }},
		{"side panic", gostreams.Tee(pipeline.From(fixture.Endless(nil)), func(v int) error {
			if v == 20 {
				panic("side")
			}
			return nil
		}), func(err error) bool {
			var pe *tensorfeed.PanicError
			return errors.As(err, &pe) && pe.Value == "side"
		}},
		{"upstream error", gostreams.Tee(pipeline.From(sourcetest.FailAfter(fixture.Count(20), 20, errBoom)), func(int) error { return nil }),
			func(err error) bool { return errors.Is(err, errBoom) }},
		{"upstream panic", gostreams.Tee(pipeline.From(panicAfter(20, "up")), func(int) error { return nil }),
			func(err error) bool {
				var pe *tensorfeed.PanicError
				return errors.As(err, &pe) && pe.Value == "up"
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fixture.Pass(t, context.Background(), tt.p)
			if !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			if len(got) < 19 || !slices.Equal(got, lo.Range(len(got))) {
				t.Fatalf("before the error: %v", got)
			}
		})
	}
}

func TestTeeStopEarly(t *testing.T) {
	var mu sync.Mutex
	seen := 0
	p := gostreams.Tee(pipeline.From(fixture.Endless(nil)), func(int) error { mu.Lock(); seen++; mu.Unlock(); return nil })
	sourcetest.BreakAfter(t, p, 31)
	mu.Lock()
	if seen < 25 || seen > 34 {
		t.Errorf("side saw %d elements, consumer 31", seen)
	}
	mu.Unlock()
	sourcetest.CancelAfter(t, p, 31)
}

// collectSink is a go-streams sink that keeps what it receives and can fail.
type collectSink struct {
	in   chan any
	done chan struct{}
	got  []any
	err  error
}

func newCollectSink(failAt int) *collectSink {
	s := &collectSink{in: make(chan any), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for e := range s.in {
			if len(s.got) == failAt && s.err == nil {
				s.err = errBoom
			}
			s.got = append(s.got, e)
		}
	}()
	return s
}

func (s *collectSink) In() chan<- any   { return s.in }
func (s *collectSink) AwaitCompletion() { <-s.done }
func (s *collectSink) Err() error       { return s.err }

func TestTeeSink(t *testing.T) {
	var sinks []*collectSink
	p := gostreams.TeeSink(pipeline.From(fixture.Count(50)), func() streams.Sink {
		s := newCollectSink(-1)
		sinks = append(sinks, s)
		return s
	})
	for range 2 {
		got, err := fixture.Pass(t, context.Background(), p)
		if err != nil || !slices.Equal(got, lo.Range(50)) {
			t.Fatalf("got %v, %v", got, err)
		}
	}
	if len(sinks) != 2 || len(sinks[1].got) != 50 || sinks[1].got[49] != 49 {
		t.Fatalf("sinks: %d", len(sinks))
	}

	// A sink's Err ends the pass with that error.
	_, err := fixture.Pass(t, context.Background(), gostreams.TeeSink(pipeline.From(fixture.Count(50)), func() streams.Sink { return newCollectSink(10) }))
	if !errors.Is(err, errBoom) {
		t.Fatalf("sink error: %v", err)
	}

	// go-streams' own sinks work, and stopping early drains them.
	q := gostreams.TeeSink(pipeline.From(fixture.Endless(nil)), func() streams.Sink { return extension.NewIgnoreSink() })
	for v := range q.All(context.Background()) {
		if v == 10 {
			break
		}
	}
}
