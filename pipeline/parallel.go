package pipeline

import "github.com/tensorfeed/tensorfeed/internal/stage"

// ParallelMap adds a step where f runs on workers goroutines, in input
// order unless Unordered is given; a panic in f reaches the consumer
// as a *tensorfeed.PanicError. Step name "parallel-map".
func ParallelMap[In, Out any](p *Pipe[In], workers int, f func(In) (Out, error), opts ...ParallelOption) *Pipe[Out] {
	q := then(p, "parallel-map", stage.ParallelMap[In, Out](p, workers, f, opts...))
	q.node.self = selfConcurrent
	return q
}
