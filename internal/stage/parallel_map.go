package stage

import (
	"context"
	"iter"
	"sync"
	"time"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/source"
)

type parallelConfig struct {
	unordered bool
	inFlight  int // 0: adaptive, see InFlight
}

// ParallelOption configures ParallelMap.
type ParallelOption = option.Option[parallelConfig]

// Unordered lets ParallelMap yield each result as soon as its worker is done
// with it, instead of in input order. It helps when the cost of f varies a
// lot from sample to sample, as one slow sample then no longer holds back
// the ones behind it; the output order then depends on timing.
func Unordered() ParallelOption {
	return option.New(func(c *parallelConfig) { c.unordered = true })
}

// InFlight sets how many samples ParallelMap holds at most: read from the
// upstream reader and not yet yielded, inputs and results together. It
// bounds the memory of a pass. By default the bound adapts: 16 per worker
// while f is slow (decoding, augmentation: each result may be large), up
// to 64 per worker while f is cheap enough for workers to take chunks of
// many samples. A larger value lets workers take larger chunks (up to n /
// (2*workers) samples), which lowers the per-sample cost when f is cheap.
// InFlight panics if n < 1.
func InFlight(n int) ParallelOption {
	if n < 1 {
		panic("stage: InFlight needs n >= 1")
	}
	return option.New(func(c *parallelConfig) { c.inFlight = n })
}

const (
	// The default window: minInFlightPerWorker samples per worker while
	// chunks are small, growing with the chunks up to maxInFlightPerWorker.
	minInFlightPerWorker = 16
	maxInFlightPerWorker = 64
	// maxChunk bounds the samples a worker takes at once.
	maxChunk = 64
	// chunkTarget is how long a worker aims to spend on one chunk: long
	// enough to make the hand-over cost (a few microseconds at worst) small,
	// short enough to keep the work spread over the workers.
	chunkTarget = 50 * time.Microsecond
)

// ParallelMap returns a reader that applies f to every sample of r with
// workers goroutines. By default the results come in input order, so the
// output is the same for any number of workers; Unordered() yields them as
// they are ready. The samples in flight are bounded (see InFlight). It is
// meant for expensive per-sample work: decoding, augmentation.
//
// f must be safe to call from several goroutines at once. Randomness in f
// must come from the sample (for example source.NewRand(seed, epoch, index)
// with an index from Enumerate), never from which worker runs it.
//
// An error returned by f ends the pass: in input order, the results before
// it are yielded, then the error, once (with Unordered, the results that are
// ready first). A panic in f becomes a *tensorfeed.PanicError carrying the
// stack of the worker, and ends the pass the same way. An error of r, or a
// panic in r (a *tensorfeed.PanicError), comes after every result of the
// samples before it, as in source.Concurrent: nothing mapped is dropped. When the consumer stops early or
// ctx is cancelled, every goroutine of the pass is cancelled and joined
// before the pass returns; a call of f that is running is waited for.
//
// # Cost
//
// One reading goroutine puts samples into a shared ring under a mutex; each
// worker takes a chunk of consecutive samples at a time and hands its
// results back the same way, so the consumer and the workers meet once per
// chunk, not once per sample. A worker sizes its next chunk from the time f
// took on its last one, aiming at about 50 µs per chunk: one sample at a
// time when f is slow (nothing waits behind a long chunk), up to
// InFlight/(2*workers) samples (at most 64) when f is cheap. A larger
// window (InFlight) lowers the cost per sample further. Nothing is
// allocated per sample. BenchmarkParallelMap compares it with a channel hop
// and a future per sample, and with MapErr.
//
// Use it for per-sample work that costs far more than a hand-over:
// decoding, augmentation. For cheap f, Map or MapErr, which run on the
// consumer's goroutine, are faster.
//
// ParallelMap panics if workers < 1 or f is nil.
func ParallelMap[In, Out any](r source.Reader[In], workers int, f func(In) (Out, error), opts ...ParallelOption) source.Reader[Out] {
	if workers < 1 {
		panic("stage: ParallelMap needs workers >= 1")
	}
	if f == nil {
		panic("stage: ParallelMap needs a function")
	}
	var cfg parallelConfig
	option.Apply(&cfg, opts)
	window, limit := cfg.inFlight, cfg.inFlight
	if window == 0 {
		window, limit = maxInFlightPerWorker*workers, minInFlightPerWorker*workers
	}
	chunk := min(maxChunk, max(1, window/(2*workers)))
	adaptive := cfg.inFlight == 0
	pass := func(r source.Reader[In]) source.Reader[Out] {
		return source.Func[Out](func(ctx context.Context) iter.Seq2[Out, error] {
			return func(yield func(Out, error) bool) {
				var zero Out
				g, gctx := scope.New(ctx)
				defer g.Stop()
				st := newPmState[In, Out](window, limit, workers, !cfg.unordered)
				gdone := gctx.Done()
				g.Go(func() error {
					// A panic in r ends the upstream pass as an error of r
					// does: the results of the samples read before it are
					// yielded first, as Concurrent does with its buffer.
					defer func() {
						if v := recover(); v != nil {
							st.end(scope.Recovered(v))
						}
					}()
					for v, err := range r.All(gctx) {
						if err != nil {
							st.end(err)
							return nil
						}
						if !st.put(gdone, v) {
							return nil
						}
					}
					st.end(nil)
					return nil
				})
				for range workers {
					g.Go(func() error {
						k := 1
						for {
							b := st.take(gdone, k)
							if b == nil {
								return nil
							}
							start := time.Now()
							b.run(f)
							k = nextChunk(time.Since(start), len(b.in), chunk)
							if adaptive {
								st.grow(min(window, max(limit, 2*workers*k)))
							}
							st.complete(b)
						}
					})
				}
				for {
					b, ok := st.next(gdone)
					if !ok {
						// The consumer's context is done.
						err := g.Stop()
						if err == nil {
							err = ctx.Err()
						}
						yield(zero, err)
						return
					}
					if b == nil { // every sample is done
						if st.upErr != nil { // written before the pass ended
							yield(zero, st.upErr)
						}
						return
					}
					for _, v := range b.out {
						if !yield(v, nil) {
							return
						}
					}
					if b.err != nil {
						yield(zero, b.err)
						return
					}
					st.release(b)
				}
			}
		})
	}
	if cfg.unordered {
		return source.NotResumable("unordered ParallelMap", pass(r), "its output order depends on timing")
	}
	// In order, the state is the upstream's after the samples the consumer
	// received: what workers hold is recomputed after a resume, and the
	// number of workers is not part of it.
	return source.Follow("parallel-map", r, pass)
}

// nextChunk returns how many samples a worker takes next, given that the
// last n took d: enough for chunkTarget, between 1 and limit.
func nextChunk(d time.Duration, n, limit int) int {
	if d <= 0 {
		return limit
	}
	return max(1, min(limit, int(chunkTarget*time.Duration(n)/d)))
}

// pmBlock is a chunk of consecutive samples that one worker maps.
type pmBlock[In, Out any] struct {
	in   []In
	out  []Out // the results of in[:len(out)]
	err  error // the error of in[len(out)], if any
	done bool
}

// run maps b.in with f, stopping at the first error or panic.
func (b *pmBlock[In, Out]) run(f func(In) (Out, error)) {
	defer func() {
		if v := recover(); v != nil {
			b.err = scope.Recovered(v)
		}
	}()
	for _, x := range b.in {
		y, err := f(x)
		if err != nil {
			b.err = err
			return
		}
		b.out = append(b.out, y)
	}
}

// pmState is the shared state of one ParallelMap pass, under one mutex: a
// ring of samples read and not yet taken, the blocks handed to the consumer
// (in take order when ordered, completion order otherwise) and counters. The
// channels only wake a goroutine that waits.
type pmState[In, Out any] struct {
	mu      sync.Mutex
	ordered bool

	ring         []In // samples read, not taken: ring[head], ... (count of them)
	head, count  int
	inFlight     int   // samples read and not yet released by the consumer
	window       int   // the ring's size
	limit        int   // the bound on inFlight now, at most window
	ended        bool  // the upstream pass is over
	upErr        error // and ended with this error
	failed       bool  // a block failed: take no more
	busy         int   // blocks taken and not complete
	blocks       []*pmBlock[In, Out]
	free         []*pmBlock[In, Out]
	idle         int  // workers waiting on work
	consWaiting  bool // the consumer waits on consReady
	readWaiting  bool // the reading goroutine waits on space
	work         chan struct{}
	consReady    chan struct{}
	space        chan struct{}
	blocksHeadAt int // index of the first block in blocks
}

func newPmState[In, Out any](window, limit, workers int, ordered bool) *pmState[In, Out] {
	return &pmState[In, Out]{
		ordered:   ordered,
		ring:      make([]In, window),
		window:    window,
		limit:     limit,
		work:      make(chan struct{}, workers),
		consReady: make(chan struct{}, 1),
		space:     make(chan struct{}, 1),
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// put adds a sample read from upstream, waiting while the window is full.
// It reports false when done is closed first.
func (s *pmState[In, Out]) put(done <-chan struct{}, v In) bool {
	s.mu.Lock()
	for s.inFlight >= s.limit {
		s.readWaiting = true
		s.mu.Unlock()
		select {
		case <-s.space:
		case <-done:
			return false
		}
		s.mu.Lock()
	}
	s.ring[(s.head+s.count)%s.window] = v
	s.count++
	s.inFlight++
	s.unlockWaking(true)
	return true
}

// unlockWaking unlocks s and, when there is work and a worker is idle,
// wakes one (outside the lock, so that it does not wake into a held lock).
func (s *pmState[In, Out]) unlockWaking(work bool) {
	wake := work && s.idle > 0
	if wake {
		s.idle--
	}
	s.mu.Unlock()
	if wake {
		signal(s.work)
	}
}

// grow raises the bound on the samples in flight to n (never lowers it:
// chunks once large may still be in flight), waking the reader if it waits.
func (s *pmState[In, Out]) grow(n int) {
	s.mu.Lock()
	if n <= s.limit {
		s.mu.Unlock()
		return
	}
	s.limit = n
	wake := s.readWaiting
	s.readWaiting = false
	s.mu.Unlock()
	if wake {
		signal(s.space)
	}
}

// end records the end of the upstream pass and wakes every waiting worker
// and the consumer.
func (s *pmState[In, Out]) end(err error) {
	s.mu.Lock()
	s.ended, s.upErr = true, err
	idle := s.idle
	s.idle = 0
	wake := s.consWaiting
	s.consWaiting = false
	s.mu.Unlock()
	for range idle {
		signal(s.work)
	}
	if wake {
		signal(s.consReady)
	}
}

// take waits for samples and returns a block of up to k of them, or nil
// when the worker must stop: no samples will come, a block failed, or done
// is closed.
func (s *pmState[In, Out]) take(done <-chan struct{}, k int) *pmBlock[In, Out] {
	s.mu.Lock()
	for s.count == 0 || s.failed {
		if s.failed || s.ended {
			s.mu.Unlock()
			return nil
		}
		s.idle++
		s.mu.Unlock()
		select {
		case <-s.work:
		case <-done:
			return nil
		}
		s.mu.Lock()
	}
	var b *pmBlock[In, Out]
	if n := len(s.free); n > 0 {
		b = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		b = new(pmBlock[In, Out])
	}
	m := min(k, s.count)
	for range m {
		b.in = append(b.in, s.ring[s.head])
		var zero In
		s.ring[s.head] = zero
		s.head = (s.head + 1) % s.window
	}
	s.count -= m
	s.busy++
	if s.ordered {
		s.blocks = append(s.blocks, b)
	}
	s.unlockWaking(s.count > 0) // more for another worker
	return b
}

// complete hands a mapped block back and wakes the consumer if it waits for
// this block (ordered) or for any (unordered).
func (s *pmState[In, Out]) complete(b *pmBlock[In, Out]) {
	s.mu.Lock()
	b.done = true
	s.busy--
	if b.err != nil {
		s.failed = true
	}
	if !s.ordered {
		s.blocks = append(s.blocks, b)
	}
	wake := s.consWaiting && (!s.ordered || s.blocks[s.blocksHeadAt] == b || b.err != nil)
	if wake {
		s.consWaiting = false
	}
	s.mu.Unlock()
	if wake {
		signal(s.consReady)
	}
}

// next waits for the next block to yield. It returns nil, true when every
// sample has been yielded, and false when done is closed first.
func (s *pmState[In, Out]) next(done <-chan struct{}) (*pmBlock[In, Out], bool) {
	s.mu.Lock()
	for {
		if s.blocksHeadAt < len(s.blocks) {
			if b := s.blocks[s.blocksHeadAt]; b.done {
				s.blocks[s.blocksHeadAt] = nil
				s.blocksHeadAt++
				if s.blocksHeadAt == len(s.blocks) {
					s.blocks, s.blocksHeadAt = s.blocks[:0], 0
				}
				s.mu.Unlock()
				return b, true
			}
		} else if s.ended && s.count == 0 && s.busy == 0 {
			s.mu.Unlock()
			return nil, true
		}
		s.consWaiting = true
		s.mu.Unlock()
		select {
		case <-s.consReady:
		case <-done:
			return nil, false
		}
		s.mu.Lock()
	}
}

// release returns a yielded block's samples to the window and the block to
// the free list.
func (s *pmState[In, Out]) release(b *pmBlock[In, Out]) {
	clear(b.in)
	clear(b.out)
	s.mu.Lock()
	s.inFlight -= len(b.in)
	b.in, b.out, b.err, b.done = b.in[:0], b.out[:0], nil, false
	s.free = append(s.free, b)
	wake := s.readWaiting
	s.readWaiting = false
	s.mu.Unlock()
	if wake {
		signal(s.space)
	}
}
