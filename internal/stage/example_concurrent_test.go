package stage_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// Buffered reads ahead of the consumer in its own goroutine; the samples and
// their order are those of the reader it wraps.
func ExampleBuffered() {
	r := stage.Buffered(source.Slice([]string{"a", "b", "c", "d"}), 2)
	for s, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Print(s, " ")
	}
	fmt.Println()
	// Output: a b c d
}

// ParallelMap keeps input order by default, so the result does not depend
// on the number of workers; an error in f comes after the results of the
// samples before it.
func ExampleParallelMap() {
	parse := func(s string) (int, error) { return strconv.Atoi(s) }
	in := source.Slice([]string{"1", "2", "3", "4", "x", "6"})
	for _, workers := range []int{1, 4} {
		got, err := source.Collect(context.Background(), stage.ParallelMap(in, workers, parse))
		fmt.Println(workers, got, err)
	}
	// Output:
	// 1 [1 2 3 4] strconv.Atoi: parsing "x": invalid syntax
	// 4 [1 2 3 4] strconv.Atoi: parsing "x": invalid syntax
}

// With Unordered, results come as workers finish them; InFlight bounds how
// many samples a pass holds at once.
func ExampleUnordered() {
	square := func(x int) (int, error) { return x * x, nil }
	r := stage.ParallelMap(source.Slice([]int{1, 2, 3, 4, 5}), 3, square,
		stage.Unordered(), stage.InFlight(4))
	got, err := source.Collect(context.Background(), r)
	slices.Sort(got) // the order depends on timing
	fmt.Println(got, err)
	// Output: [1 4 9 16 25] <nil>
}
