package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
)

// TestRawField checks that every --record-dtype reads its payload as
// little-endian numbers, negative and fractional ones included.
func TestRawField(t *testing.T) {
	le := binary.LittleEndian
	i32 := le.AppendUint32(le.AppendUint32(nil, uint32(7)), uint32(0xfffffffe)) // 7, -2
	i64 := le.AppendUint64(le.AppendUint64(nil, 1<<40), math.MaxUint64)         // 2^40, -1
	f32 := le.AppendUint32(le.AppendUint32(nil, math.Float32bits(1.5)), math.Float32bits(-0.25))
	for _, c := range []struct {
		dt   sample.DType
		data []byte
		want string
	}{
		{sample.Uint8, []byte{3, 250}, "[3 250] [] [] []"},
		{sample.Int32, i32, "[] [7 -2] [] []"},
		{sample.Int64, i64, "[] [] [1099511627776 -1] []"},
		{sample.Float32, f32, "[] [] [] [1.5 -0.25]"},
	} {
		s := sink.New(1, []sink.Field[format.Record]{rawField(c.dt, []int{2})}, nil)
		b, err := s.Assemble(batch.Batch[format.Record]{Samples: []format.Record{{Data: c.data}}})
		if err != nil {
			t.Fatal(c.dt, err)
		}
		d, _ := b.Get("data")
		got := fmt.Sprint(d.U8, d.I32, d.I64, d.F32)
		if got != c.want {
			t.Errorf("%v: got %s, want %s", c.dt, got, c.want)
		}
	}
}
