package batch_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
)

// A consumer of a recycling reader hands every batch back when it is done
// with it; the reader then fills the same slice again.
func ExampleRecycling() {
	r := batch.Of(source.Slice([]int{1, 2, 3, 4, 5, 6, 7}), 3, batch.Keep, batch.Recycling())
	arrays := map[*int]bool{}
	for b, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		sum := 0
		for _, v := range b.Samples {
			sum += v
		}
		fmt.Println(b.Samples, "sum", sum)
		arrays[&b.Samples[0]] = true
		b.Release() // b must not be used after this
	}
	fmt.Println("slices allocated:", len(arrays))
	// Output:
	// [1 2 3] sum 6
	// [4 5 6] sum 15
	// [7] sum 7
	// slices allocated: 1
}
