package source_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/source"
)

// A mixture of two datasets at 0.7/0.3 over an epoch of 10 items: the
// small part wraps round, the proportions are exact, and the mixture reads
// like any random-access dataset, here shuffled by index.
func ExampleMix() {
	digits := source.IndexSlice([]string{"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"})
	letters := source.IndexSlice([]string{"a", "b"})
	mix := source.Mix(10, []float64{0.7, 0.3}, digits, letters)
	in, _ := source.Collect(context.Background(), source.ReadIndexed(mix))
	fmt.Println(in)
	shuffled, _ := source.Collect(source.WithEpoch(context.Background(), 0), source.ReadIndexed(mix, source.ShuffleIndex(1)))
	fmt.Println(shuffled)
	// Output:
	// [d0 a d1 d2 d3 b d4 d5 a d6]
	// [d1 d6 b a d0 a d5 d3 d4 d2]
}
