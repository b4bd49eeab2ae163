package tensor_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// counter is a Recycler that counts what it takes back.
type counter struct{ got []*tensor.Batch }

func (c *counter) Recycle(b *tensor.Batch) { c.got = append(c.got, b) }

func batch(rows, padded int, owner tensor.Recycler) *tensor.Batch {
	x := tensor.Tensor{Name: "x", Shape: []int{rows, 2}, DType: sample.Float32, F32: make([]float32, rows*2)}
	y := tensor.Tensor{Name: "y", Shape: []int{rows}, DType: sample.Int32, I32: make([]int32, rows)}
	for i := range rows {
		x.F32[2*i], x.F32[2*i+1], y.I32[i] = float32(i), float32(-i), int32(i)
	}
	b := &tensor.Batch{Data: []tensor.Tensor{x}, Label: []tensor.Tensor{y}, Padded: padded}
	b.SetOwner(owner)
	return b
}

func TestReleaseHandsBackOnce(t *testing.T) {
	c := &counter{}
	b := batch(4, 0, c)
	b.Release()
	b.Release()
	if len(c.got) != 1 || c.got[0] != b {
		t.Fatalf("recycled %d batches, want b once", len(c.got))
	}
	for _, p := range batch(4, 0, c).Split(2) {
		p.Release() // parts are views: nothing to hand back
	}
	if len(c.got) != 1 {
		t.Fatalf("releasing Split parts recycled memory")
	}
	b.SetOwner(c) // a producer hands the same value out again
	b.Release()
	if len(c.got) != 2 {
		t.Fatalf("a re-armed batch was not recycled")
	}
	batch(2, 0, nil).Release() // no owner: nothing happens
}

func rowsOf(p *tensor.Batch) (xs []float32, ys []int32, padded int) {
	x, _ := p.Get("x")
	y, _ := p.Get("y")
	return x.F32, y.I32, p.Padded
}

func TestSplitAt(t *testing.T) {
	b := batch(10, 3, nil)
	parts := b.SplitAt(2, 2, 8)
	want := []struct {
		ys     []int32
		padded int
	}{{[]int32{0, 1}, 0}, {[]int32{}, 0}, {[]int32{2, 3, 4, 5, 6, 7}, 1}, {[]int32{8, 9}, 2}}
	if len(parts) != len(want) {
		t.Fatalf("%d parts, want %d", len(parts), len(want))
	}
	for i, p := range parts {
		xs, ys, padded := rowsOf(p)
		if !reflect.DeepEqual(ys, want[i].ys) || padded != want[i].padded || len(xs) != 2*len(ys) || p.Len() != len(ys) {
			t.Errorf("part %d: rows %v padded %d (len %d), want %v padded %d", i, ys, padded, p.Len(), want[i].ys, want[i].padded)
		}
	}
	for _, bad := range [][]int{{5, 3}, {-1}, {11}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SplitAt%v did not panic", bad)
				}
			}()
			b.SplitAt(bad...)
		}()
	}
}

func ExampleBatch_Split() {
	b := batch(5, 1, nil)
	for i, p := range b.Split(2) {
		_, ys, padded := rowsOf(p)
		fmt.Println("part", i, "rows", ys, "padding", padded)
	}
	// Output:
	// part 0 rows [0 1 2] padding 0
	// part 1 rows [3 4] padding 1
}
