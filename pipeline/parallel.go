package pipeline

import "github.com/tensorfeed/tensorfeed/stage"

// ParallelMap adds stage.ParallelMap: f runs on workers goroutines, in input
// order unless stage.Unordered is given; a panic in f reaches the consumer
// as a *tensorfeed.PanicError. Step name "parallel-map".
func ParallelMap[In, Out any](p *Pipe[In], workers int, f func(In) (Out, error), opts ...stage.ParallelOption) *Pipe[Out] {
	q := then(p, "parallel-map", stage.ParallelMap[In, Out](p, workers, f, opts...))
	q.node.self = selfConcurrent
	return q
}
