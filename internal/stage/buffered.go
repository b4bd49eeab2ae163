package stage

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/source"
)

// Buffered returns a reader that reads r ahead of its consumer: each pass
// starts one goroutine that ranges over r and keeps up to n samples ready,
// so reading (decoding, augmenting) overlaps with the consumer's work. This
// is PaddlePaddle's buffered decorator, its C++ DoubleBufferReader and
// MXNet's threaded prefetching iterator. It is source.Concurrent with one
// reader.
//
// n = 0 turns buffering off, as in PaddlePaddle's buffered(reader, 0): the
// result is r itself, read by the consumer's goroutine, nothing ahead; a
// flag or configuration can pass 0 to disable prefetching. Buffered panics
// if n < 0 (a programmer's error, as slices.Chunk's n < 1).
//
// Order, values and errors are those of r: the samples that precede an
// error reach the consumer first, then the error, once. A panic in r becomes
// a *tensorfeed.PanicError. When the consumer stops early or ctx is cancelled,
// the pass cancels the reading goroutine and waits for it before it returns.
//
// The consumer takes all the samples that are ready in one block, and while
// it works through them the reader fills the buffer again: a double buffer,
// so up to 2n samples (and one more that the reader holds) are read ahead.
// n counts what flows through: samples before batching, batches after.
//
// # Cost
//
// A sample is handed over in a short mutex section, not a channel operation;
// goroutines are woken only when one side waits. The cost per sample falls
// as n grows: with n = 1 reader and consumer wake each other for every
// sample, with n of a few dozen or more they rarely wait. Nothing is
// allocated per sample. BenchmarkBuffered compares it with a plain buffered
// channel. Place Buffered after batch.Of, so that one hand-over carries a
// whole batch and a small n is enough; before batching, use n of a few
// hundred samples.
func Buffered[T any](r source.Reader[T], n int) source.Reader[T] {
	if n < 0 {
		panic(fmt.Sprintf("stage: Buffered needs n >= 0, got %d", n))
	}
	// Order is kept, so the state is the upstream's after the samples the
	// consumer received; the prefetch size is not part of it.
	// Buffered(r, 0) has the same state as any other size, so a run may
	// resume with another.
	return source.Follow("buffered", r, func(r source.Reader[T]) source.Reader[T] {
		if n == 0 {
			return r
		}
		return source.Concurrent([]source.Reader[T]{r}, n)
	})
}
