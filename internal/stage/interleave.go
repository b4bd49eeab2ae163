package stage

import (
	"context"
	"fmt"
	"iter"
	"math"
	"sync"

	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/source"
)

// Interleave returns a reader that reads several of readers at once, in a
// fixed order of blocks: tf.data's interleave(cycle_length,
// block_length), deterministic. A pass opens the first cycle readers into
// cycle slots and takes block samples from each slot in turn; when a
// reader ends, its slot is empty and the turn moves on, and the next turn
// of an empty slot opens the next reader there; the pass ends when every
// reader has been read. With cycle 1 it is the readers one after the
// other; with block 1 and cycle len(readers), one sample of each in turn.
// The order depends only on the readers' own orders and lengths.
//
// The open readers are pulled on the consumer's goroutine (like a Zip's
// inputs), each up to 127 samples ahead, and stopped when the pass ends.
// To read ahead in every open reader at once (shard files over a network,
// say), give readers that prefetch, such as pipes ending in Buffered: the
// order is the same. Every reader runs with the pass's epoch. The first
// error of any reader ends the pass, once.
//
// Interleave is source.Resumable: its state after n samples is the turn
// (slot, samples of the block taken), the next reader to open, which
// reader each slot holds and every reader's own state, all computed from
// n by replaying the turns with the lengths that the pass saw its readers
// end at. It panics (a programmer's error) when there is no reader, a
// reader is nil, or cycle or block < 1.
func Interleave[T any](readers []source.Reader[T], cycle, block int) source.Reader[T] {
	if len(readers) == 0 {
		panic("stage.Interleave: no reader")
	}
	if cycle < 1 || block < 1 {
		panic(fmt.Sprintf("stage.Interleave: cycle %d, block %d: want both >= 1", cycle, block))
	}
	for i, r := range readers {
		if r == nil {
			panic(fmt.Sprintf("stage.Interleave: reader %d is nil", i))
		}
	}
	start := turns{slots: make([]int, cycle)}
	for i := range start.slots {
		start.slots[i] = -1
	}
	return &interleave[T]{readers: readers, cycle: cycle, block: block, at: start,
		first: make([]source.Reader[T], len(readers)),
		kind:  fmt.Sprintf("interleave(%d,cycle=%d,block=%d)", len(readers), cycle, block), log: new(endLog)}
}

// turns is where the round of blocks stands.
type turns struct {
	slot, taken int   // the slot whose turn it is, samples of its block taken
	next        int   // the next reader to open
	slots       []int // the reader in each slot, -1 for none
}

func (t *turns) clone() turns {
	c := *t
	c.slots = append([]int(nil), t.slots...)
	return c
}

// advance gives the turn to the next slot.
func (t *turns) advance() { t.slot, t.taken = (t.slot+1)%len(t.slots), 0 }

// interleave is one Interleave reader: the original, or one resumed from
// a state, whose pass starts at the turns at, with the readers then open
// read from first.
type interleave[T any] struct {
	readers      []source.Reader[T]
	cycle, block int
	at           turns
	count        int64              // samples the consumer had before at (a state's pos[0])
	first        []source.Reader[T] // reader i resumed, for those open at the start
	prior        []source.State     // the states of the readers read to their end before the start
	kind         string
	epochs       source.Epochs
	log          *endLog
}

// reader returns reader i as its pass in this interleave reads it.
func (l *interleave[T]) reader(i int) source.Reader[T] {
	if l.first[i] != nil {
		return l.first[i]
	}
	return l.readers[i]
}

func (l *interleave[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		ctx, epoch := l.epochs.Start(ctx)
		l.log.start(epoch)
		t := l.at.clone()
		pulls := make([]*chunkPuller[T], l.cycle)
		defer func() {
			for _, p := range pulls {
				if p != nil {
					p.stop()
				}
			}
		}()
		pos := make([]int64, l.cycle) // samples taken from the reader in each slot
		open := 0
		for _, r := range t.slots {
			if r >= 0 {
				open++
			}
		}
		done := ctx.Done()
		for i := 0; ; i++ {
			if scope.Stopped(done, i) {
				yieldErr(yield, ctx.Err())
				return
			}
			s := t.slot
			switch r := t.slots[s]; {
			case r >= 0:
				if pulls[s] == nil { // a reader open in the state resumed from
					pulls[s] = pullChunks(ctx, l.reader(r))
				}
				v, err, ok := pulls[s].get()
				if err != nil {
					yieldErr(yield, err)
					return
				}
				if !ok {
					l.log.ended(epoch, r, pos[s])
					pulls[s].stop()
					pulls[s], t.slots[s], pos[s] = nil, -1, 0
					open--
					t.advance()
					continue
				}
				pos[s]++
				if t.taken++; t.taken == l.block {
					t.advance()
				}
				if !yield(v, nil) {
					return
				}
			case t.next < len(l.readers):
				t.slots[s] = t.next
				pulls[s] = pullChunks(ctx, l.reader(t.next))
				t.next++
				open++
			case open == 0:
				return
			default:
				t.advance()
			}
		}
	}
}

// StateAt returns {interleave(...), [n, slot, taken, next, the reader in
// each slot + 1 (0 for none)], every reader's state}. The turns of the
// first n samples are replayed with the lengths the pass of epoch saw its
// readers end at; a reader not yet opened is at its start, one read to
// its end at its end. Past the end of the pass the count n is kept and
// the turns stay at the end (see Mix.StateAt).
func (l *interleave[T]) StateAt(epoch int, n int64) (source.State, error) {
	if n < 0 {
		return source.State{}, fmt.Errorf("stage.Interleave: state after %d samples", n)
	}
	lens := l.log.get(epoch)
	t := l.at.clone()
	pos := make([]int64, len(l.readers))
	length := func(r int) int64 {
		if v, ok := lens[r]; ok {
			return v
		}
		return math.MaxInt64
	}
	open := 0
	for _, r := range t.slots {
		if r >= 0 {
			open++
		}
	}
	for got := int64(0); got < n; {
		s := t.slot
		r := t.slots[s]
		switch {
		case r >= 0 && pos[r] < length(r):
			pos[r]++
			got++
			if t.taken++; t.taken == l.block {
				t.advance()
			}
		case r >= 0: // it ended here
			t.slots[s] = -1
			open--
			t.advance()
		case t.next < len(l.readers):
			t.slots[s] = t.next
			t.next++
			open++
		case open == 0:
			got = n // the pass is over
		default:
			t.advance()
		}
	}
	st := source.State{Kind: l.kind, Pos: make([]int64, 4+l.cycle), In: make([]source.State, len(l.readers))}
	st.Pos[0], st.Pos[1], st.Pos[2], st.Pos[3] = l.count+n, int64(t.slot), int64(t.taken), int64(t.next)
	for s, r := range t.slots {
		st.Pos[4+s] = int64(r + 1)
	}
	for i := range l.readers {
		var in source.State
		var err error
		switch {
		case l.prior != nil && i < l.at.next && l.first[i] == nil:
			in = l.prior[i] // ended before this reader's start
		case i < t.next:
			in, err = source.StateOf(l.reader(i), epoch, pos[i])
		default:
			in, err = source.StateOf(l.readers[i], epoch, 0)
		}
		if err != nil {
			return source.State{}, fmt.Errorf("stage.Interleave: reader %d: %w", i, err)
		}
		st.In[i] = in
	}
	return st, nil
}

// Resume returns the interleave continuing at the state's turn, each
// reader open in a slot resumed from its state.
func (l *interleave[T]) Resume(st source.State) (source.Reader[T], error) {
	if err := st.Check(l.kind, 4+l.cycle, len(l.readers)); err != nil {
		return nil, err
	}
	bad := func(field int, why string) error {
		return &source.StateError{Want: l.kind, Got: st, Field: fmt.Sprintf("pos[%d]", field), Why: why}
	}
	t := turns{slot: int(st.Pos[1]), taken: int(st.Pos[2]), next: int(st.Pos[3]), slots: make([]int, l.cycle)}
	switch {
	case st.Pos[1] >= int64(l.cycle):
		return nil, bad(1, fmt.Sprintf("slot %d of %d", st.Pos[1], l.cycle))
	case st.Pos[2] >= int64(l.block):
		return nil, bad(2, fmt.Sprintf("%d samples of a block of %d taken", st.Pos[2], l.block))
	case st.Pos[3] > int64(len(l.readers)):
		return nil, bad(3, fmt.Sprintf("next reader %d of %d", st.Pos[3], len(l.readers)))
	}
	r := &interleave[T]{readers: l.readers, cycle: l.cycle, block: l.block, count: st.Pos[0],
		first: make([]source.Reader[T], len(l.readers)), prior: st.In, kind: l.kind, log: new(endLog)}
	for s := range t.slots {
		i := int(st.Pos[4+s]) - 1
		t.slots[s] = i
		if i < 0 {
			continue
		}
		if i >= t.next || r.first[i] != nil {
			return nil, bad(4+s, fmt.Sprintf("slot %d holds reader %d, not opened or in another slot", s, i))
		}
		first, err := source.ResumeFrom(l.readers[i], st.In[i])
		if err != nil {
			return nil, err
		}
		r.first[i] = first
	}
	r.at = t
	return r, nil
}

// endLog records how many samples each reader's pass yielded, for the
// passes of recent epochs, for StateAt.
type endLog struct {
	mu     sync.Mutex
	epochs map[int]map[int]int64
}

// start begins a pass of epoch: it forgets an earlier pass of the same
// epoch and the epochs before the previous one.
func (l *endLog) start(epoch int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epochs == nil {
		l.epochs = map[int]map[int]int64{}
	}
	for e := range l.epochs {
		if e < epoch-1 {
			delete(l.epochs, e)
		}
	}
	l.epochs[epoch] = map[int]int64{}
}

func (l *endLog) ended(epoch, i int, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.epochs[epoch]; e != nil {
		e[i] = n
	}
}

// get returns a copy of the lengths the pass of epoch saw.
func (l *endLog) get(epoch int) map[int]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int]int64, len(l.epochs[epoch]))
	for i, n := range l.epochs[epoch] {
		out[i] = n
	}
	return out
}
