package stage

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/source"
)

// Shuffle returns a reader that yields the samples of r in a random order
// drawn through a buffer of at most buffer samples.
//
// Like PaddlePaddle's shuffle decorator, a pass first fills the buffer;
// then, for every further sample of r, it yields a sample picked at random
// from the buffer and puts the new one in its place; when r ends, it yields
// what is left in random order. Unlike Paddle's, which shuffles one full
// buffer at a time, the buffer slides, so samples also move across buffer
// boundaries. With buffer >= the length of a pass the result is a uniform
// random permutation; with buffer 1 the order is unchanged. Memory is
// allocated as the buffer fills, so a large buffer over a short pass costs
// only the pass; a pass that ends hands its buffer (cleared) to the next one,
// so later epochs allocate nothing.
//
// The order is determined by seed and the epoch of the pass
// (source.Epochs: the epoch in the context, else this stage's own pass
// count), so every epoch has a fresh order and a run repeats exactly. To keep
// Shard parts disjoint, give every part the same seed and epoch.
//
// An error from r ends the pass at once; the samples still in the buffer are
// dropped.
//
// A buffer of 0 turns shuffling off, as PaddlePaddle's shuffle with
// buf_size 0 yields every sample as it comes: the result is r itself, in
// r's order, with nothing read ahead. Shuffle panics if buffer < 0 (a programmer's error).
func Shuffle[T any](r source.Reader[T], buffer int, seed uint64) source.Reader[T] {
	if buffer < 0 {
		panic(fmt.Sprintf("stage.Shuffle: negative buffer %d", buffer))
	}
	if buffer == 0 {
		return r
	}
	var epochs source.Epochs
	var spare buffers[T]
	// The buffer's contents are not saved: a resumed pass replays the
	// epoch's shuffle up to its position, so a state stays a few bytes.
	return source.Replayed(fmt.Sprintf("shuffle(%d,seed=%d)", buffer, seed), source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			ctx, epoch := epochs.Start(ctx)
			rng := source.NewRand(seed, epoch, -1)
			buf := spare.get(min(buffer, 1024))
			defer func() { spare.put(buf) }()
			for s, err := range r.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				if len(buf) < buffer {
					if len(buf) == cap(buf) {
						// Double, up to buffer: append's 1.25x steps copy
						// a large buffer of large samples many times.
						buf = slices.Grow(buf, min(len(buf), buffer-len(buf)))
					}
					buf = append(buf, s)
					continue
				}
				j := rng.IntN(buffer)
				out := buf[j]
				buf[j] = s
				if !yield(out, nil) {
					return
				}
			}
			done := ctx.Done()
			for i := 0; len(buf) > 0; i++ {
				if scope.Stopped(done, i) {
					yieldErr(yield, ctx.Err())
					return
				}
				last := len(buf) - 1
				j := rng.IntN(len(buf))
				out := buf[j]
				buf[j] = buf[last]
				buf = buf[:last]
				if !yield(out, nil) {
					return
				}
			}
		}
	}), r)
}

// buffers keeps the buffers of finished passes for the passes that follow:
// refilling a buffer of thousands of samples from scratch every epoch costs
// more than the shuffle itself. Passes may run at once, so each takes its
// own buffer.
type buffers[T any] struct {
	mu   sync.Mutex
	free [][]T
}

// get returns an empty buffer, a kept one if there is one.
func (b *buffers[T]) get(capacity int) []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := len(b.free); n > 0 {
		buf := b.free[n-1]
		b.free = b.free[:n-1]
		return buf
	}
	return make([]T, 0, capacity)
}

// put keeps buf for a later pass. It is cleared first, so that a kept
// buffer holds no sample (and no memory a sample points to) alive.
func (b *buffers[T]) put(buf []T) {
	clear(buf[:cap(buf)])
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free = append(b.free, buf[:0])
}
