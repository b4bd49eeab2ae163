package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// meet is a fill that returns only once want fills are in progress at
// the same time (or fails after a while): a batch's rows filled on one
// goroutine never get there.
type meet struct {
	mu      sync.Mutex
	now     int
	want    int
	arrived chan struct{}
}

func (m *meet) fill(s fillSample, dst []float32) error {
	m.mu.Lock()
	m.now++
	if m.now == m.want {
		close(m.arrived)
	}
	m.mu.Unlock()
	select {
	case <-m.arrived:
	case <-time.After(5 * time.Second):
		return fmt.Errorf("row %d filled alone: no other row was being filled", s.I)
	}
	dst[0] = float32(s.I)
	return nil
}

// With Workers(n), the rows of one batch's Fill field are filled on
// several goroutines: an epoch of a single batch still keeps the workers
// busy, and the batch is the one a single worker makes.
func TestTensorizeFillsRowsOfOneBatchInParallel(t *testing.T) {
	m := &meet{want: 2, arrived: make(chan struct{})}
	data := sink.Fill("data", nil, m.fill)
	s := sink.New(8, []sink.Field[fillSample]{data}, nil)
	feed := pipeline.Tensorize(pipeline.From[fillSample](source.ReadIndexed(source.IndexSlice(fillData(8)))), s,
		batch.Keep, pipeline.Workers(2))
	n := 0
	for b, err := range feed.All(source.WithEpoch(context.Background(), 0)) {
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(b.Data[0].F32), "[0 1 2 3 4 5 6 7]"; got != want {
			t.Errorf("batch %v, want %v", got, want)
		}
		b.Release()
		n++
	}
	if n != 1 {
		t.Fatalf("%d batches, want 1", n)
	}
}

// Rows filled on several goroutines fail as on one: without a policy the
// first bad row's error ends the pass; with one, the bad rows are dropped
// and the rest closed up, the batches those of one worker.
func TestTensorizeRowPartsKeepBadRowsInOrder(t *testing.T) {
	d := fillData(40, 3, 4, 17, 31, 38)
	one, err := fillPass(fillFeed(d, 16, batch.Keep, pipeline.OnBad(source.SkipBad(1))))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 16} {
		got, err := fillPass(fillFeed(d, 16, batch.Keep, pipeline.Workers(w), pipeline.OnBad(source.SkipBad(1))))
		if err != nil {
			t.Fatalf("%d workers: %v", w, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(one) {
			t.Errorf("%d workers: batches\n%v\nwant\n%v", w, got, one)
		}
		_, err = fillPass(fillFeed(d, 16, batch.Keep, pipeline.Workers(w)))
		var te *tensorfeed.Error
		if !errors.As(err, &te) || te.Record != 3 || !errors.Is(err, tensorfeed.ErrBadData) {
			t.Errorf("%d workers without a policy: %v, want record 3's error", w, err)
		}
	}
}

// A panic in a fill on a row goroutine reaches the consumer as a
// *tensorfeed.PanicError, and no goroutine is left behind (goleak in
// TestMain).
func TestTensorizeRowPartPanics(t *testing.T) {
	data := sink.Fill("data", nil, func(s fillSample, dst []float32) error {
		if s.I == 5 {
			panic("fill: row 5")
		}
		return nil
	})
	s := sink.New(8, []sink.Field[fillSample]{data}, nil)
	feed := pipeline.Tensorize(pipeline.From[fillSample](source.ReadIndexed(source.IndexSlice(fillData(8)))), s,
		batch.Keep, pipeline.Workers(4))
	_, err := fillPass(feed)
	var pe *tensorfeed.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a *tensorfeed.PanicError", err)
	}
	if !errorsContain(err, "fill: row 5") {
		t.Errorf("error %v does not name the panic", err)
	}
}

func errorsContain(err error, s string) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if pe, ok := e.(*tensorfeed.PanicError); ok && fmt.Sprint(pe.Value) == s {
			return true
		}
	}
	return false
}

// A consumer that stops after the first batch while rows of later batches
// are being filled on their own goroutines leaves none behind (goleak in
// TestMain), and the batch it got is whole.
func TestTensorizeRowPartsStopEarly(t *testing.T) {
	for _, w := range []int{2, 4} {
		feed := fillFeed(fillData(80), 16, batch.Keep, pipeline.Workers(w))
		for b, err := range feed.All(source.WithEpoch(context.Background(), 0)) {
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprint(b.Data[0].Shape, b.Data[0].F32[45:48]), "[16 3] [15 30 -15]"; got != want {
				t.Errorf("%d workers: first batch %v, want %v", w, got, want)
			}
			b.Release()
			break
		}
	}
}
