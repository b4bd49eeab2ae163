package sink_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// A field made by Fill writes every row its fill can, of any element type
// (int8 included); a fill that fails makes Assemble fail with an error
// that names the field and the row and wraps the fill's.
func TestFill(t *testing.T) {
	badAt := -1
	px := sink.Fill("px", []int{2}, func(v int, dst []int8) error {
		if v == badAt {
			return &tensorfeed.Error{Path: "a.rec", Offset: 40, Record: int64(v), Err: fmt.Errorf("no image: %w", tensorfeed.ErrBadData)}
		}
		dst[0], dst[1] = int8(v), int8(-v)
		return nil
	})
	lab := sink.Fill("lab", nil, func(v int, dst []float32) error { dst[0] = float32(v) / 2; return nil })
	s := sink.New(4, []sink.Field[int]{px}, []sink.Field[int]{lab})
	if d := s.ProvideData()[0]; d.DType != sample.Int8 || fmt.Sprint(d.Shape) != "[4 2]" {
		t.Fatalf("ProvideData %v", d)
	}
	b, err := s.Assemble(batch.Batch[int]{Samples: []int{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(b.Data[0].I8, b.Label[0].F32); got != "[1 -1 2 -2 3 -3] [0.5 1 1.5]" {
		t.Fatalf("tensors %s", got)
	}
	b.Release()
	badAt = 7
	b, err = s.Assemble(batch.Batch[int]{Samples: []int{5, 6, 7, 8}})
	var pe *tensorfeed.Error
	if b != nil || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &pe) || pe.Record != 7 ||
		!strings.Contains(err.Error(), `field "px", row 2 of the batch`) {
		t.Fatalf("bad row: batch %v, error %v", b, err)
	}
}

// Fill panics on a programmer's mistake, as Float32 does.
func TestFillPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"nil fill":  func() { sink.Fill[int, float32]("x", nil, nil) },
		"bad shape": func() { sink.Fill("x", []int{0}, func(int, []float32) error { return nil }) },
		"no name":   func() { sink.Fill("", nil, func(int, []float32) error { return nil }) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// Under Tensorize's Workers(2) the rows of a Fill field go to whichever
// goroutine is free: while row 0 is slow (it waits until every other row
// of its batch is filled), the other goroutine fills all the rest, with a
// bad row among them skipped and the rows closed up as on one goroutine.
func TestFillRowsGoToTheFreeGoroutine(t *testing.T) {
	const n = 16
	var filled atomic.Int32
	others := make(chan struct{})
	px := sink.Fill("px", nil, func(v int, dst []float32) error {
		switch {
		case v == 0:
			select {
			case <-others:
			case <-time.After(5 * time.Second):
				return errors.New("row 0 waited for the other rows in vain")
			}
		case v == 5:
			if filled.Add(1) == n-2 {
				close(others)
			}
			return fmt.Errorf("row 5: %w", tensorfeed.ErrBadData)
		default:
			if filled.Add(1) == n-2 {
				close(others)
			}
		}
		dst[0] = float32(v)
		return nil
	})
	s := sink.New(n, []sink.Field[int]{px}, nil)
	p := pipeline.Tensorize(pipeline.From(source.Slice(ints(n))), s, batch.Keep,
		pipeline.Workers(2), pipeline.OnBad(source.SkipBad(1)))
	var got []float32
	for b, err := range p.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.Data[0].F32...)
		b.Release()
	}
	if want := "[0 1 2 3 4 6 7 8 9 10 11 12 13 14 15]"; fmt.Sprint(got) != want {
		t.Fatalf("rows %v, want %s", got, want)
	}
}

func ints(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
