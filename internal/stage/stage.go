package stage

import "github.com/tensorfeed/tensorfeed/source"

// Stage is a reader decorator that turns a reader of In into a reader of Out.
// Stages with extra arguments are adapted with a closure:
//
//	var double stage.Stage[int, int] = func(r source.Reader[int]) source.Reader[int] {
//		return stage.Map(r, func(x int) int { return 2 * x })
//	}
type Stage[In, Out any] func(source.Reader[In]) source.Reader[Out]

// Then composes two stages into one.
func Then[A, B, C any](first Stage[A, B], second Stage[B, C]) Stage[A, C] {
	return func(r source.Reader[A]) source.Reader[C] { return second(first(r)) }
}
