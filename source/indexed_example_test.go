package source_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/source"
)

// A shuffle by index: every epoch is a new order of the whole dataset, and
// a run that stopped at position 3 of epoch 1 resumes there exactly,
// without reading the first three samples again.
func ExampleReadIndexed() {
	words := source.IndexSlice([]string{"a", "b", "c", "d", "e", "f"})
	r := source.ReadIndexed(words, source.ShuffleIndex(7))
	ctx := context.Background()
	e0, _ := source.Collect(source.WithEpoch(ctx, 0), r)
	e1, _ := source.Collect(source.WithEpoch(ctx, 1), r)
	resumed, _ := source.Collect(source.WithEpoch(ctx, 1), r.From(3))
	fmt.Println(e0, e1, resumed)
	// Output: [e d a c f b] [f c e d a b] [d a b]
}

func ExampleMapIndexed() {
	squares := source.MapIndexed(source.IndexSlice([]int{1, 2, 3}), func(v int) (int, error) { return v * v, nil })
	v, _ := squares.Get(2)
	_, err := squares.Get(3)
	fmt.Println(squares.Len(), v, err)
	// Output: 3 9 index out of range: 3 not in [0, 3)
}
