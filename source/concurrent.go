package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/scope"
)

// Concurrent returns a reader whose passes read all of readers at once, each
// in its own goroutine, into one buffer that holds up to buffer samples:
// PaddlePaddle's MultipleReader and open_files. Use it to read several files
// (shards, parts of a RecordIO set) in parallel.
//
// The order of samples across readers is not deterministic: it depends on
// which goroutine runs first. The samples of one reader keep their order
// relative to each other, so with a single reader Concurrent is a prefetcher
// that keeps the reader's order exactly (this is how pipeline's Buffered works).
// Put a Shuffle step after Concurrent when the order must be repeatable.
//
// The consumer takes every sample that is ready in one block, so while it
// works through a block the readers may fill the buffer again: up to
// 2*buffer samples (and one more per reader) are read ahead in all. Handing
// a sample over costs one short mutex section, not a channel operation, and
// a goroutine is woken only when the other side waits for it. A small buffer
// costs more per sample: with buffer 1 every sample wakes a goroutine.
// BenchmarkConcurrent compares it with one goroutine per reader sending on a
// channel.
//
// When a reader fails, the others are cancelled; the samples already in the
// buffer reach the consumer first, then the first error, once. A panic in a
// reader becomes a *tensorfeed.PanicError. When the consumer stops early or
// ctx is cancelled, the pass cancels every reader and waits for them before
// it returns. A pass cancelled while it hands over a block of
// ready samples stops within 256 of them. Each reader's passes are its own: Concurrent starts one pass
// of every reader per pass of its own, with the caller's context.
//
// Concurrent panics if buffer < 1. With no readers a pass is empty.
func Concurrent[T any](readers []Reader[T], buffer int) Reader[T] {
	if buffer < 1 {
		panic("source: Concurrent needs buffer >= 1")
	}
	readers = slices.Clone(readers)
	if len(readers) == 1 {
		// One reader keeps its order: the state is the reader's own.
		return Follow("fan-in", readers[0], func(r Reader[T]) Reader[T] { return concurrent([]Reader[T]{r}, buffer) })
	}
	return NotResumable("Concurrent over several readers", concurrent(readers, buffer), "the order of their samples depends on timing")
}

// concurrent is the pass of Concurrent.
func concurrent[T any](readers []Reader[T], buffer int) Reader[T] {
	return Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return fanIn(ctx, len(readers), buffer, func(ctx context.Context, i int, put func(T) bool) error {
			for v, err := range readers[i].All(ctx) {
				if err != nil {
					return err
				}
				if !put(v) {
					return ctx.Err()
				}
			}
			return nil
		})
	})
}

// Files returns a reader whose passes read the files at paths with workers
// goroutines: each takes the next path from a shared queue, reads one pass
// of open(path) into a buffer of up to buffer samples, then takes the next
// path, until every file has been read. open is called inside the pass and
// should only build the reader: the reader opens its file when its pass
// starts and closes it when the pass ends.
//
// The order of samples across files is not deterministic unless workers is
// 1, in which case the files are read one after the other in the order of
// paths. The samples of one file keep their order.
//
// Each file reader's pass runs with the epoch of the Files pass (see
// [Epochs.Start]), so random readers built by open differ from epoch to
// epoch.
//
// A failing file stops the pass: the other workers are cancelled, the
// samples already buffered reach the consumer, then the error, once. The
// error names the file: it is a [*tensorfeed.Error] for the file unless it
// already names that file. When the consumer stops early or ctx is cancelled,
// every worker is cancelled and joined before the pass returns.
//
// Files panics if workers < 1, buffer < 1 or open is nil. More workers than
// paths are not started.
func Files[T any](paths []string, workers int, open func(path string) Reader[T], buffer int) Reader[T] {
	if workers < 1 {
		panic("source: Files needs workers >= 1")
	}
	if buffer < 1 {
		panic("source: Files needs buffer >= 1")
	}
	if open == nil {
		panic("source: Files needs an open function")
	}
	paths = slices.Clone(paths)
	var epochs Epochs
	r := Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		ctx, _ = epochs.Start(ctx)
		var next atomic.Int64
		return fanIn(ctx, min(workers, len(paths)), buffer, func(ctx context.Context, _ int, put func(T) bool) error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return nil
				}
				for v, err := range open(paths[i]).All(ctx) {
					if err != nil {
						return fileError(paths[i], err)
					}
					if !put(v) {
						return ctx.Err()
					}
				}
			}
		})
	})
	if workers > 1 && len(paths) > 1 {
		return NotResumable("Files with several workers", r, "the order of samples across files depends on timing; read with one worker, or shard the files")
	}
	// The files' lengths are known only by reading them: a resumed pass
	// replays.
	return Replayed[T, T](fmt.Sprintf("files(%d)", len(paths)), r)
}

// fileError names path in err unless err already names a file: its chain
// holds a *tensorfeed.Error with a Path (this file, or another one the
// reader found at fault, as the next shard of a WebDataset sample split
// across two) or an *fs.PathError for path. Otherwise err becomes the Err
// of a *tensorfeed.Error for path, without a position.
// Context errors are left as they are: they are about the pass, not the
// file.
func fileError(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var te *tensorfeed.Error
	if errors.As(err, &te) && te.Path != "" {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return &tensorfeed.Error{Path: path, Offset: -1, Record: -1, Err: err}
}

// fanIn runs produce for producers 0..producers-1, each in its own
// goroutine of a scope.Group, and yields what they put into a queue of up
// to buffer samples. produce returns the error that ends the pass, or nil;
// put reports false when the producer must stop. The group keeps the first
// error (or panic) and cancels the other producers with it; the queue only
// says when every producer is done, so the samples put before an error are
// yielded before it.
func fanIn[T any](ctx context.Context, producers, buffer int,
	produce func(ctx context.Context, i int, put func(T) bool) error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if producers == 0 {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
			}
			return
		}
		// gctx stops the producers: on the consumer's return, on the first
		// error or panic, and with ctx.
		g, gctx := scope.New(ctx)
		defer g.Stop()
		q := newQueue[T](buffer, producers)
		gdone := gctx.Done()
		put := func(v T) bool { return q.put(gdone, v) }
		for i := range producers {
			g.Go(func() error {
				// finish runs on a panic too, before the group records it;
				// the consumer asks the group for the error only once every
				// producer has returned (Wait).
				defer q.finish()
				return produce(gctx, i, put)
			})
		}
		done := ctx.Done()
		block := make([]T, 0, buffer)
		n := 0 // samples handed over since the last look at ctx, over blocks
		for {
			got, closed, ok := q.take(done, block)
			if !ok {
				yield(zero, ctx.Err())
				return
			}
			for _, v := range got {
				// A block can hold the whole buffer: look at ctx every
				// cancelCheck samples, so that a cancelled pass stops
				// within that many samples instead of handing over the
				// rest of the block. The count runs over blocks: counted
				// from each block's start, a cancel late in a short block
				// let the next block hand over cancelCheck more.
				if n++; n == cancelCheck {
					n = 0
					select {
					case <-done:
						yield(zero, ctx.Err())
						return
					default:
					}
				}
				if !yield(v, nil) {
					return
				}
			}
			clear(got)
			block = got
			if closed {
				if err := g.Wait(); err != nil {
					yield(zero, err)
				}
				return
			}
		}
	}
}

// cancelCheck is how many samples of a block a pass hands over between two
// looks at its context.
const cancelCheck = 256

// queue hands samples from several producer goroutines to one consumer. The
// producers append to a buffer of up to n samples under a mutex; the consumer
// swaps the whole buffer for an empty one, so a sample costs one short
// critical section instead of a channel operation, and nothing waits in the
// queue while the consumer is idle. The channels only wake a goroutine that
// waits: ready the consumer, space the producers.
type queue[T any] struct {
	mu      sync.Mutex
	buf     []T
	n       int
	live    int  // producers that have not finished
	closed  bool // every producer has finished
	waiting bool // the consumer waits on ready
	blocked int  // producers waiting on space
	ready   chan struct{}
	space   chan struct{}
}

func newQueue[T any](n, producers int) *queue[T] {
	return &queue[T]{
		buf:   make([]T, 0, n),
		n:     n,
		live:  producers,
		ready: make(chan struct{}, 1),
		space: make(chan struct{}, producers),
	}
}

// put appends v, waiting while the buffer is full. It reports false when
// done is closed first.
func (q *queue[T]) put(done <-chan struct{}, v T) bool {
	q.mu.Lock()
	for len(q.buf) >= q.n {
		q.blocked++
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-done:
			return false
		}
		q.mu.Lock()
	}
	q.buf = append(q.buf, v)
	wake := q.waiting
	q.waiting = false
	q.mu.Unlock()
	if wake {
		q.wake()
	}
	return true
}

// finish records that one producer has ended; the last one to finish
// closes the queue.
func (q *queue[T]) finish() {
	q.mu.Lock()
	q.live--
	wake := false
	if q.live == 0 {
		q.closed = true
		wake = q.waiting
		q.waiting = false
	}
	q.mu.Unlock()
	if wake {
		q.wake()
	}
}

// take waits until samples are ready or the queue is closed, and returns the
// ready samples, leaving spare (emptied) as the new buffer. closed reports
// that these are the last. ok is false when done was closed first.
func (q *queue[T]) take(done <-chan struct{}, spare []T) (got []T, closed, ok bool) {
	for {
		q.mu.Lock()
		if len(q.buf) > 0 || q.closed {
			got, q.buf = q.buf, spare[:0]
			closed = q.closed
			blocked := q.blocked
			q.blocked = 0
			q.mu.Unlock()
			for range blocked {
				select {
				case q.space <- struct{}{}:
				default: // every waiting producer has a token already
				}
			}
			return got, closed, true
		}
		q.waiting = true
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-done:
			return nil, false, false
		}
	}
}

// wake wakes the consumer; the caller has seen and cleared q.waiting.
func (q *queue[T]) wake() {
	select {
	case q.ready <- struct{}{}:
	default: // a wake-up is pending already
	}
}
