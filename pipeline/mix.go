package pipeline

import (
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// Mix starts a pipeline whose every sample comes from one of readers,
// chosen at random with probability weights[k]/sum(weights), from a hash
// of (seed, epoch, position): tf.data's sample_from_datasets. The stream
// repeats for a seed and epoch and is the same whatever runs downstream
// (1 or 16 ParallelMap workers).
//
// With length 0 a pass ends when the input chosen next has ended
// (stop_on_empty_dataset=True, as Grain's IterDataset.mix does). With
// length > 0 a pass yields exactly length samples, and an input that ends
// starts its next pass (pass r of epoch e runs as epoch e + r<<32, so a
// shuffled input has a fresh order each time round); an input whose fresh
// pass is empty then ends the pass with an error wrapping
// tensorfeed.ErrBadData. The counts per input follow the weights up to
// the randomness of the draws: for exact proportions over an epoch, mix
// random-access datasets with source.Mix and read them with
// source.ReadIndexed.
//
// The inputs are pulled on the consumer's goroutine, up to 127 samples
// ahead each, and stopped when the pass ends; the first error of any input
// ends the pass, once. A checkpoint holds the choice position, the passes
// each input has ended and every input's own state: a resumed pass goes
// on to the sample. Readers that are Pipes appear in Stats as the step's
// inputs. The step is named "mix" (rename it with Named). Mix
// panics when given no reader, a nil reader, weights that are not one
// positive finite number per reader, or length < 0.
func Mix[T any](readers []source.Reader[T], weights []float64, seed uint64, length int, opts ...Option) *Pipe[T] {
	return start(newConfig(opts), "mix", stage.Mix(readers, weights, seed, length), pipeNodes(readers)...)
}

// pipeNodes returns the nodes of the readers that are Pipes, the inputs of
// a step that reads several readers.
func pipeNodes[T any](readers []source.Reader[T]) []*node {
	var nodes []*node
	for _, r := range readers {
		if p, ok := r.(*Pipe[T]); ok {
			nodes = append(nodes, p.node)
		}
	}
	return nodes
}
