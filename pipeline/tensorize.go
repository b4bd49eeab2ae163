package pipeline

import (
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sink"
)

// Tensorize adds sink.Tensorize: every batch becomes named, shaped tensors
// as described by s (s.ProvideData and s.ProvideLabel are known before the
// first batch). Step name "tensorize".
func Tensorize[T any](p *Pipe[batch.Batch[T]], s *sink.Sink[T]) *Pipe[*sink.Tensors] {
	return thenSync(p, "tensorize", sink.Tensorize[T](p, s))
}
