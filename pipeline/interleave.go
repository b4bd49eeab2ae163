package pipeline

import (
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// Interleave starts a pipeline that reads several of readers at once (shard
// files, say) in a fixed order of blocks: tf.data's interleave(cycle_length,
// block_length) with deterministic=True. A pass opens the first cycle
// readers and takes block samples from each in turn; when a reader ends
// its slot is freed and the turn moves on, and the next turn of a free
// slot opens the next reader there. The order depends only on the
// readers' orders and lengths, never on timing.
//
// The open readers are pulled on the consumer's goroutine, up to 127
// samples ahead each. To read ahead in every open reader at the same time
// (tf.data's num_parallel_calls), give Pipes that end in Buffered: the
// order stays the same. Every reader runs with the pass's epoch; the first
// error of any reader ends the pass, once. A checkpoint holds the turn,
// which reader each slot holds and every reader's own state: a resumed
// pass goes on to the sample. Readers that are Pipes appear in Stats as
// the step's inputs. The step is named "interleave" (rename it with
// Named). Interleave panics when given no reader, a nil reader, or
// cycle or block < 1.
func Interleave[T any](readers []source.Reader[T], cycle, block int, opts ...Option) *Pipe[T] {
	return start(newConfig(opts), "interleave", stage.Interleave(readers, cycle, block), pipeNodes(readers)...)
}
