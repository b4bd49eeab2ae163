package stage

import "github.com/tensorfeed/tensorfeed/source"

// Buffered returns a reader that reads r ahead of its consumer: each pass
// starts one goroutine that ranges over r and keeps up to n samples ready,
// so reading (decoding, augmenting) overlaps with the consumer's work. This
// is PaddlePaddle's buffered decorator, its C++ DoubleBufferReader and
// MXNet's threaded prefetching iterator. Buffered panics if n < 1.
//
// Order, values and errors are those of r: the samples that precede an
// error reach the consumer first, then the error, once. A panic in r becomes
// a *source.PanicError. When the consumer stops early or ctx is cancelled,
// the pass cancels the reading goroutine and waits for it before it returns.
//
// # Cost
//
// Every sample crosses a channel between two goroutines. On a 2-core machine
// that costs about 100-200 ns per sample and no allocation (see
// BenchmarkBuffered), several times the cost of a fused Map. Place Buffered
// after batch.Of, so that one hop carries a whole batch, unless single
// samples are expensive to read. n counts what it holds: samples before
// batching, batches after.
func Buffered[T any](r source.Reader[T], n int) source.Reader[T] {
	if n < 1 {
		panic("stage: Buffered needs n >= 1")
	}
	return source.Concurrent([]source.Reader[T]{r}, n)
}
