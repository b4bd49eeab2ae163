package batch

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/tensorfeed/tensorfeed/source"
)

// The readers of RollOver and RoundBatch link an epoch to the one before
// it: the first batch of a RollOver pass holds the samples the previous
// pass left over, and a RoundBatch pass skips the samples the previous one
// padded with. To resume them exactly, each keeps an epochLog: what every
// recent pass started with and, for the passes that ran to their end, what
// they left for the next. A state then holds that count and, when the
// carried samples are still to be delivered, the upstream's state where
// they start in the previous epoch, so they are read again rather than
// saved.

// epochLog records, per epoch, what a pass started with (the carried or
// skipped count) and, for passes that ran to their end, how many upstream
// samples they read in all. It keeps the last few epochs.
type epochLog struct {
	mu      sync.Mutex
	start   map[int]int64
	read    map[int]int64
	batches map[int]int64 // batches yielded by the passes that ran to their end
}

func (l *epochLog) began(epoch int, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.start == nil {
		l.start, l.read, l.batches = map[int]int64{}, map[int]int64{}, map[int]int64{}
	}
	l.start[epoch] = n
	delete(l.read, epoch)
	delete(l.batches, epoch)
	for e := range l.start {
		if e < epoch-2 {
			delete(l.start, e)
			delete(l.read, e)
			delete(l.batches, e)
		}
	}
}

func (l *epochLog) ended(epoch int, read, batches int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.read[epoch] = read
	l.batches[epoch] = batches
}

// batchesOf returns how many batches the pass of epoch yielded, if it ran
// to its end.
func (l *epochLog) batchesOf(epoch int) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.batches[epoch]
	return n, ok
}

// get returns what epoch started with and, if it ran to its end, how many
// upstream samples it read.
func (l *epochLog) get(epoch int) (start int64, started bool, read int64, ended bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start, started = l.start[epoch]
	read, ended = l.read[epoch]
	return
}

// counting returns r with every sample it yields counted into *n.
func counting[T any](r source.Reader[T], n *int64) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			for s, err := range r.All(ctx) {
				if err == nil {
					*n++
				}
				if !yield(s, err) {
					return
				}
			}
		}
	})
}

// rollReader is a batching reader with policy RollOver.
type rollReader[T any] struct {
	orig   source.Reader[T] // the upstream of the first pass of every epoch
	r      source.Reader[T] // the upstream this reader reads: orig, or orig resumed
	size   int
	ro     *carry[T]
	log    *epochLog
	pool   *pool[T]
	epochs *source.Epochs
	// A resumed reader: done batches of its epoch were yielded before it,
	// whose pass started with carried samples, read again from prev (the
	// previous epoch resumed where they start) when done is 0.
	resumed bool
	done    int64
	carried int64
	prev    source.Reader[T]
	prevSt  *source.State
}

func newRollOver[T any](r source.Reader[T], size int, p *pool[T]) *rollReader[T] {
	return &rollReader[T]{orig: r, r: r, size: size, ro: &carry[T]{}, log: &epochLog{}, pool: p, epochs: new(source.Epochs)}
}

func (o *rollReader[T]) kind() string { return fmt.Sprintf("batch(%d,rollover)", o.size) }

func (o *rollReader[T]) All(ctx context.Context) iter.Seq2[Batch[T], error] {
	return func(yield func(Batch[T], error) bool) {
		ctx, epoch := o.epochs.Start(ctx)
		carried := int64(0)
		if o.resumed {
			o.ro.take() // whatever is there belongs to another run
			if o.done == 0 && o.carried > 0 {
				left, err := firstN(source.WithEpoch(ctx, epoch-1), o.prev, int(o.carried))
				if err == nil && int64(len(left)) < o.carried {
					err = fmt.Errorf("batch: resume: the previous epoch holds %d of the %d carried samples", len(left), o.carried)
				}
				if err != nil {
					yield(Batch[T]{}, err)
					return
				}
				o.ro.put(left)
			}
			carried = o.carried
		} else {
			o.ro.mu.Lock()
			carried = int64(len(o.ro.left))
			o.ro.mu.Unlock()
		}
		o.log.began(epoch, carried)
		base := int64(0) // upstream samples of the epoch read before this pass
		if o.resumed && o.done > 0 {
			base = o.done*int64(o.size) - o.carried
		}
		read, batches := int64(0), o.done
		for b, err := range pass(ctx, counting(o.r, &read), o.size, RollOver, nil, o.ro, nil, o.pool) {
			if !yield(b, err) || err != nil {
				return
			}
			batches++
		}
		if ctx.Err() == nil {
			o.log.ended(epoch, base+read, batches)
		}
	}
}

// StateAt returns {batch(size,rollover), [batches, carried], upstream's
// state after the samples of those batches that were not carried, and,
// before the first batch of a pass that starts with carried samples, the
// previous epoch's upstream state where they start}.
func (o *rollReader[T]) StateAt(epoch int, n int64) (source.State, error) {
	carried, prev, err := o.carryOf(epoch)
	if err != nil {
		return source.State{}, err
	}
	done := n
	up := n * int64(o.size)
	if o.resumed {
		done += o.done
		if o.done > 0 {
			carried = 0 // this reader's upstream starts after them
		}
	}
	if n > 0 {
		up -= carried
	}
	in, err := source.StateOf(o.r, epoch, up)
	if err != nil {
		return source.State{}, err
	}
	st := source.State{Kind: o.kind(), Pos: []int64{done, o.carriedAt(carried)}, In: []source.State{in}}
	if done == 0 && st.Pos[1] > 0 {
		st.In = append(st.In, prev)
	}
	return st, nil
}

// carriedAt returns the carried count a state records.
func (o *rollReader[T]) carriedAt(c int64) int64 {
	if o.resumed {
		return o.carried
	}
	return c
}

// carryOf returns how many carried samples the pass of epoch starts with
// and the upstream's state where they start in the previous epoch.
func (o *rollReader[T]) carryOf(epoch int) (int64, source.State, error) {
	if o.resumed {
		if o.prevSt != nil {
			return o.carried, *o.prevSt, nil
		}
		return o.carried, source.State{}, nil
	}
	if c, ok, _, _ := o.log.get(epoch); ok && c == 0 {
		return 0, source.State{}, nil
	}
	c0, ok0, read, ended := o.log.get(epoch - 1)
	if !ok0 {
		if c, ok, _, _ := o.log.get(epoch); ok {
			return c, source.State{}, fmt.Errorf("batch: RollOver state of epoch %d: its pass started with %d carried samples from an epoch %d this reader did not run to its end", epoch, c, epoch-1)
		}
		return 0, source.State{}, nil // a first pass carries nothing
	}
	if !ended {
		return 0, source.State{}, fmt.Errorf("batch: RollOver state of epoch %d: epoch %d did not run to its end, so its carry is not known", epoch, epoch-1)
	}
	c := (c0 + read) % int64(o.size)
	if o.size == 0 {
		c = 0
	}
	prev, err := source.StateOf(o.orig, epoch-1, read-c)
	return c, prev, err
}

// Resume continues a pass from st, reading the carried samples again from
// the previous epoch when its first batch is still to come.
func (o *rollReader[T]) Resume(st source.State) (source.Reader[Batch[T]], error) {
	if st.Kind != o.kind() || len(st.Pos) != 2 || len(st.In) < 1 || len(st.In) > 2 {
		return nil, st.Check(o.kind(), 2, 1)
	}
	if err := st.Check(o.kind(), 2, len(st.In)); err != nil {
		return nil, err
	}
	done, carried := st.Pos[0], st.Pos[1]
	if carried >= int64(max(o.size, 1)) || (done == 0 && carried > 0) != (len(st.In) == 2) {
		return nil, &source.StateError{Want: o.kind(), Got: st, Why: fmt.Sprintf("%d carried samples before batch %d", carried, done)}
	}
	r, err := source.ResumeFrom(o.orig, st.In[0])
	if err != nil {
		return nil, err
	}
	q := &rollReader[T]{orig: o.orig, r: r, size: o.size, ro: o.ro, log: o.log, pool: o.pool, epochs: new(source.Epochs),
		resumed: true, done: done, carried: carried}
	if len(st.In) == 2 {
		if q.prev, err = source.ResumeFrom(o.orig, st.In[1]); err != nil {
			return nil, err
		}
		q.prevSt = &st.In[1]
	}
	return q, nil
}

// roundReader is a batching reader with policy RoundBatch, size > 0.
type roundReader[T any] struct {
	orig   source.Reader[T]
	r      source.Reader[T]
	size   int
	rb     *round
	log    *epochLog // start: the skip of each pass; read: the skip it leaves
	pool   *pool[T]
	epochs *source.Epochs
	// A resumed reader: done batches of its epoch were yielded before it,
	// whose pass skipped skip samples; r starts after them.
	resumed    bool
	done, skip int64
	next       int64 // the skip the next epoch takes, plus 1, when the epoch had ended; 0 if not
}

func newRoundBatch[T any](r source.Reader[T], size int, p *pool[T]) *roundReader[T] {
	return &roundReader[T]{orig: r, r: r, size: size, rb: &round{}, log: &epochLog{}, pool: p, epochs: new(source.Epochs)}
}

func (o *roundReader[T]) kind() string { return fmt.Sprintf("batch(%d,roundbatch)", o.size) }

func (o *roundReader[T]) All(ctx context.Context) iter.Seq2[Batch[T], error] {
	return func(yield func(Batch[T], error) bool) {
		ctx, epoch := o.epochs.Start(ctx)
		skip := o.rb.take()
		var base int
		var headOf source.Reader[T]
		if o.resumed {
			skip = int(o.skip)
			base = int(o.skip + o.done*int64(o.size))
			headOf = o.orig
		}
		o.log.began(epoch, int64(skip))
		batches := o.done
		// ended runs when the pass has read its last sample: before the
		// padded last batch, if there is one, which then counts too.
		ended := func(next int, padded bool) {
			o.rb.put(next)
			if padded {
				o.log.ended(epoch, int64(next), batches+1)
			} else {
				o.log.ended(epoch, int64(next), batches)
			}
		}
		if o.next > 0 { // resumed after the epoch's last batch
			ended(int(o.next-1), false)
			return
		}
		if o.resumed {
			skip = 0 // r starts after the skipped samples
		}
		for b, err := range roundPass(ctx, o.r, o.size, skip, base, headOf, ended, o.pool) {
			if err == nil {
				batches++
			}
			if !yield(b, err) || err != nil {
				return
			}
		}
	}
}

// skipOf returns how many samples the pass of epoch skips at its start.
func (o *roundReader[T]) skipOf(epoch int) (int64, error) {
	if o.resumed {
		return o.skip, nil
	}
	if k, ok, _, _ := o.log.get(epoch); ok {
		return k, nil
	}
	if _, ok, next, ended := o.log.get(epoch - 1); ok {
		if !ended {
			return 0, fmt.Errorf("batch: RoundBatch state of epoch %d: epoch %d did not run to its end, so its padding is not known", epoch, epoch-1)
		}
		return next, nil
	}
	return 0, nil // a first pass skips nothing
}

// StateAt returns {batch(size,roundbatch), [batches, skipped], upstream's
// state after the skipped samples and those of the batches}.
func (o *roundReader[T]) StateAt(epoch int, n int64) (source.State, error) {
	k, err := o.skipOf(epoch)
	if err != nil {
		return source.State{}, err
	}
	up := n * int64(o.size)
	if !o.resumed {
		up += k
	}
	in, err := source.StateOf(o.r, epoch, up)
	if err != nil {
		return source.State{}, err
	}
	next := o.next
	if !o.resumed {
		if b, ok := o.log.batchesOf(epoch); ok && n >= b {
			_, _, k2, _ := o.log.get(epoch)
			next = k2 + 1
		}
	}
	return source.State{Kind: o.kind(), Pos: []int64{o.done + n, k, next}, In: []source.State{in}}, nil
}

// Resume continues a pass from st; the samples the last batch repeats are
// read again from the start of the epoch.
func (o *roundReader[T]) Resume(st source.State) (source.Reader[Batch[T]], error) {
	r, err := resumeInput(st, o.kind(), 3, o.orig)
	if err != nil {
		return nil, err
	}
	return &roundReader[T]{orig: o.orig, r: r, size: o.size, rb: o.rb, log: o.log, pool: o.pool, epochs: new(source.Epochs),
		resumed: true, done: st.Pos[0], skip: st.Pos[1], next: st.Pos[2]}, nil
}
