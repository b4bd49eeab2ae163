package pipeline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// interleaved is a pipeline of batches from an interleave of five shards
// of different lengths, each prefetched, through a ParallelMap.
func interleaved(workers int) *pipeline.Pipe[batch.Batch[int]] {
	var shards []source.Reader[int]
	for i, n := range []int{30, 7, 0, 45, 12} {
		shard := source.ReadIndexed(source.IndexSlice(seq(100*i, 100*i+n)), source.ShuffleIndex(uint64(i)))
		shards = append(shards, pipeline.From[int](shard).Buffered(4))
	}
	l := pipeline.Interleave(shards, 3, 4)
	sq := pipeline.ParallelMap(l, workers, func(v int) (int, error) { return v * 10, nil })
	return pipeline.Batch(sq, 8, batch.Keep)
}

// TestInterleaveResumeWithOtherWorkers stops a run of shards read through
// Interleave (each prefetched) with 3 workers and resumes it with 2.
func TestInterleaveResumeWithOtherWorkers(t *testing.T) {
	for _, stop := range []int64{1, 5, 12} {
		checkResume(t, interleaved, stop)
	}
}

// Four shards read two at a time, three samples from each in turn.
func ExampleInterleave() {
	shards := []source.Reader[string]{
		source.Slice([]string{"a0", "a1", "a2", "a3"}),
		source.Slice([]string{"b0", "b1"}),
		source.Slice([]string{"c0", "c1", "c2"}),
		source.Slice([]string{"d0"}),
	}
	all, _ := source.Collect(context.Background(), pipeline.Interleave(shards, 2, 3))
	fmt.Println(all)
	// Output: [a0 a1 a2 b0 b1 a3 c0 c1 c2 d0]
}
