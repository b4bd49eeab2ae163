package sink_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
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
