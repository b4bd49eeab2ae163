package pipeline

import (
	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/source"
)

// FanIn adds source.Concurrent: every pass reads all of readers at once,
// each in its own goroutine, into one buffer of up to buffer samples, and
// yields their samples as they arrive (PaddlePaddle's MultipleReader). Each
// reader's own order is kept; how readers interleave depends on timing, so
// put a Shuffle after FanIn when the order must repeat, or use Zip2 for a
// deterministic pairing. The first error of any reader (a panic becomes a
// *tensorfeed.PanicError) ends the pass after the samples already buffered.
//
// Readers that are Pipes appear in Stats as the step's inputs. The step is
// named "fan-in" (rename it with Named). FanIn panics when given no
// reader, a nil reader, or buffer < 1.
func FanIn[T any](readers []source.Reader[T], buffer int, opts ...Option) *Pipe[T] {
	if len(readers) == 0 {
		panic("pipeline.FanIn: no reader")
	}
	if lo.Contains(readers, nil) {
		panic("pipeline.FanIn: nil reader")
	}
	parents := lo.FilterMap(readers, func(r source.Reader[T], _ int) (*node, bool) {
		p, ok := r.(*Pipe[T])
		if !ok {
			return nil, false
		}
		return p.node, true
	})
	q := start(newConfig(opts), "fan-in", source.Concurrent(readers, buffer), parents...)
	q.node.self = selfConcurrent // a reader that is not a pipe is measured here only
	if len(parents) == len(readers) {
		q.node.self = selfRelay
	}
	return q
}
