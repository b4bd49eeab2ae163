package pipeline

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/internal/stage"
)

// ParallelMap adds a step where f runs on workers goroutines, in input
// order unless Unordered is given; a panic in f reaches the consumer
// as a *tensorfeed.PanicError. Workers Auto sizes the step as the pass
// runs (see Autotune). Step name "parallel-map".
func ParallelMap[In, Out any](p *Pipe[In], workers int, f func(In) (Out, error), opts ...ParallelOption) *Pipe[Out] {
	if workers == Auto { // sized as the pass runs: see Autotune
		r, g := autoParallelMap(p, f, opts)
		q := then(p, "parallel-map", r)
		q.node.self, q.node.tuned = selfConcurrent, func() string { return fmt.Sprintf("auto %d/%d", g.now.Load(), g.t.cores) }
		return q
	}
	q := then(p, "parallel-map", stage.ParallelMap[In, Out](p, workers, f, opts...))
	q.node.self = selfConcurrent
	return q
}
