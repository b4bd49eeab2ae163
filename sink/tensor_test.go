package sink_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sink"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		n, padded, k int
		sizes        []int
		pads         []int
	}{
		{8, 0, 2, []int{4, 4}, []int{0, 0}},
		{8, 0, 3, []int{3, 3, 2}, []int{0, 0, 0}},
		{7, 0, 4, []int{2, 2, 2, 1}, []int{0, 0, 0, 0}},
		{8, 3, 3, []int{3, 3, 2}, []int{0, 1, 2}},
		{8, 5, 2, []int{4, 4}, []int{1, 4}},
		{8, 8, 2, []int{4, 4}, []int{4, 4}},
		{2, 0, 4, []int{1, 1, 0, 0}, []int{0, 0, 0, 0}},
		{0, 0, 2, []int{0, 0}, []int{0, 0}},
		{5, 1, 1, []int{5}, []int{1}},
	}
	all := recs(8)
	s := newSink(8)
	for _, tt := range tests {
		ts, err := s.Assemble(batch.Batch[rec]{Samples: all[:tt.n], Padded: tt.padded})
		if err != nil {
			t.Fatal(err)
		}
		var parts []*sink.Tensors = ts.Split(tt.k)
		if len(parts) != tt.k {
			t.Fatalf("n=%d k=%d: %d parts", tt.n, tt.k, len(parts))
		}
		lo := 0
		for i, p := range parts {
			hi := lo + tt.sizes[i]
			if p.Rows() != tt.sizes[i] || p.Padded != tt.pads[i] {
				t.Errorf("n=%d padded=%d k=%d part %d: %d rows, %d padded; want %d, %d",
					tt.n, tt.padded, tt.k, i, p.Rows(), p.Padded, tt.sizes[i], tt.pads[i])
			}
			if w := want(all[lo:hi], tt.pads[i]); !same(p, w) {
				t.Errorf("n=%d k=%d part %d:\ngot  %+v\nwant %+v", tt.n, tt.k, i, p, w)
			}
			lo = hi
		}
	}
}

func TestSplitSharesMemory(t *testing.T) {
	ts, err := newSink(4).Assemble(batch.Batch[rec]{Samples: recs(4)})
	if err != nil {
		t.Fatal(err)
	}
	parts := ts.Split(2)
	parts[1].Data[0].F32[0] = -7 // row 2, first element
	if ts.Data[0].F32[2*4] != -7 {
		t.Error("a part does not share the batch's memory")
	}
	parts[0].Label[0].I64 = append(parts[0].Label[0].I64, 99) // capped: must not reach part 1
	if parts[1].Label[0].I64[0] != recs(4)[2].Label {
		t.Error("appending to a part overwrote the next one")
	}
	parts[0].Data[0].Shape[0] = 100
	if ts.Data[0].Shape[0] != 4 {
		t.Error("a part shares its shape with the batch")
	}
}

func TestSplitPanics(t *testing.T) {
	ts, _ := newSink(2).Assemble(batch.Batch[rec]{Samples: recs(2)})
	defer func() {
		if recover() == nil {
			t.Error("no panic for k = 0")
		}
	}()
	ts.Split(0)
}
