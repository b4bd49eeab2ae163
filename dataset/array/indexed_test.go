package array_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/array"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestRows(t *testing.T) {
	data := make([]float32, 7*3)
	for i := range data {
		data[i] = float32(i)
	}
	d := array.Rows[float32](array.Float32("x", []int{3}, data))
	if d.Len() != 7 {
		t.Fatalf("Len = %d", d.Len())
	}
	row, err := d.Get(2)
	if err != nil || !slices.Equal(row, []float32{6, 7, 8}) || cap(row) != 3 {
		t.Fatalf("Get(2) = %v (cap %d), %v", row, cap(row), err)
	}
	for _, i := range []int{-1, 7} {
		if _, err := d.Get(i); !errors.Is(err, source.ErrIndex) {
			t.Fatalf("Get(%d): %v", i, err)
		}
	}
	for _, opts := range [][]source.IndexedOption{nil, {source.ShuffleIndex(1)}} {
		if err := sourcetest.TestReader(source.ReadIndexed(d, opts...)); err != nil {
			t.Fatal(err)
		}
	}
	u := array.Rows[uint8](array.Uint8("u", nil, []uint8{4, 5, 6}))
	if v, _ := u.Get(1); !slices.Equal(v, []uint8{5}) {
		t.Fatalf("scalar samples: Get(1) = %v", v)
	}
	all, err := source.Collect(context.Background(), source.ReadIndexed(u, source.ShuffleIndex(2)))
	if err != nil || len(all) != 3 {
		t.Fatalf("%v, %v", all, err)
	}
}

func TestRowsWrongType(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Rows[int32] of a float32 array did not panic")
		}
	}()
	array.Rows[int32](array.Float32("x", nil, []float32{1}))
}

func ExampleRows() {
	x := array.Int64("x", []int{2}, []int64{0, 1, 10, 11, 20, 21, 30, 31})
	r := source.ReadIndexed(array.Rows[int64](x), source.ShuffleIndex(5))
	for row, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(row, " ")
	}
	fmt.Println()
	// Output: [10 11] [30 31] [0 1] [20 21]
}
