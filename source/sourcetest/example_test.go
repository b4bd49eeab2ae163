package sourcetest_test

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// Pairs is a custom stage: it yields consecutive samples two at a time and
// drops a last odd one. It keeps the contract by passing errors on once,
// stopping when its consumer stops, and returning when its upstream does.
func Pairs[T any](r source.Reader[T]) source.Reader[[2]T] {
	return source.Func[[2]T](func(ctx context.Context) iter.Seq2[[2]T, error] {
		return func(yield func([2]T, error) bool) {
			var p [2]T
			n := 0
			for v, err := range r.All(ctx) {
				if err != nil {
					yield([2]T{}, err)
					return
				}
				p[n] = v
				if n++; n == 2 {
					if !yield(p, nil) {
						return
					}
					n = 0
				}
			}
		}
	})
}

// A custom stage is checked with TestStage, in a test as
// `if err := sourcetest.TestStage(...); err != nil { t.Fatal(err) }`.
func Example() {
	err := sourcetest.TestStage(Pairs[int], func(i int) int { return i })
	fmt.Println("Pairs keeps the contract:", err == nil)

	// A stage that swallows its upstream's errors breaks it.
	dropsErrors := func(r source.Reader[int]) source.Reader[int] {
		return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
			return func(yield func(int, error) bool) {
				for v, err := range r.All(ctx) {
					if err != nil {
						return
					}
					if !yield(v, nil) {
						return
					}
				}
			}
		})
	}
	fmt.Println(sourcetest.TestStage(dropsErrors, func(i int) int { return i }))
	// Output:
	// Pairs keeps the contract: true
	// upstream error: pass ended with <nil>, want the upstream's error
}
