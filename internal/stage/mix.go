package stage

import (
	"context"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/mixargs"
	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/source"
)

// ErrEmptyInput is wrapped by the error of a Mix that must re-iterate an
// input whose fresh pass yields nothing: it would never make progress. It
// wraps tensorfeed.ErrBadData, which is how a caller outside tells it.
var ErrEmptyInput = fmt.Errorf("stage: input to re-iterate is empty: %w", tensorfeed.ErrBadData)

// Mix returns a reader that draws every sample from one of readers,
// chosen at random with probability weights[k]/sum(weights): tf.data's
// sample_from_datasets, and Grain's IterDataset.mix with random choice.
// Choice j of a pass of epoch e depends only on (seed, e, j), so a pass
// repeats exactly, every epoch has its own sequence, and the stream is
// the same whatever runs downstream (1 or 16 ParallelMap workers).
//
// With length 0 the pass ends when the input chosen next has ended
// (tf.data's stop_on_empty_dataset=True; Grain's behaviour): the samples
// the other inputs hold are not read. With length > 0 every pass yields
// exactly length samples, and an input that ends starts its next pass,
// so a small dataset is re-iterated as often as its weight asks; pass r
// of input k in epoch e runs as epoch e + r<<32 (r = 0 is e itself), so a
// shuffled input has a fresh order each time round. An input whose fresh
// pass is empty then ends the pass with an error wrapping
// [ErrEmptyInput].
//
// The inputs are read on the consumer's goroutine (as pulled iterators,
// like a Zip's), each up to 127 samples ahead, and stopped when the pass
// ends. The first error of any input ends the pass, once.
//
// Mix is source.Resumable: its state after n samples is the choice
// position, how many passes of each input have ended, and every input's
// own state, all computed from n by replaying the choices (a hash each),
// so a resume continues to the sample whatever was read ahead. It panics
// (a programmer's error) when there is no reader, the weights are not one
// positive finite number per reader, or length < 0.
func Mix[T any](readers []source.Reader[T], weights []float64, seed uint64, length int) source.Reader[T] {
	sum := mixargs.Check("stage.Mix", "reader", len(readers), weights, length)
	for k, r := range readers {
		if r == nil {
			panic(fmt.Sprintf("stage.Mix: reader %d is nil", k))
		}
	}
	m := &mix[T]{
		readers: readers,
		first:   make([]source.Reader[T], len(readers)),
		rounds:  make([]int64, len(readers)),
		cum:     make([]float64, len(readers)),
		seed:    seed,
		length:  int64(length),
		log:     new(mixLog),
	}
	acc := 0.0
	parts := make([]string, len(weights))
	for k, w := range weights {
		acc += w
		m.cum[k] = acc / sum
		parts[k] = strconv.FormatFloat(w, 'g', -1, 64)
	}
	m.cum[len(m.cum)-1] = 1 // every draw below 1 lands somewhere
	m.kind = fmt.Sprintf("mix(%s,seed=%d,length=%d)", strings.Join(parts, ":"), seed, length)
	return m
}

// mix is one Mix reader: the original one, or one resumed from a state
// (start > 0, or first set), whose pass continues the choices at start
// with input k in its pass rounds[k], read from first[k].
type mix[T any] struct {
	readers []source.Reader[T] // the inputs, for their fresh passes
	first   []source.Reader[T] // input k's pass rounds[k], resumed; nil: a fresh pass
	rounds  []int64            // passes of each input ended before start
	start   int64              // the choice the pass starts at
	count   int64              // samples the consumer had before start (a state's pos[0])
	cum     []float64          // cumulative probabilities, the last 1
	seed    uint64
	length  int64 // samples per pass; 0: stop at the first input that ends
	kind    string
	epochs  source.Epochs
	log     *mixLog
}

// choose returns the input of choice j of epoch: the first k whose
// cumulative probability exceeds a uniform draw hashed from (seed, epoch,
// j). A hash, not a generator's stream, so StateAt replays any choice
// without the ones before it.
func (m *mix[T]) choose(epoch int, j int64) int {
	x := seeded.Mix64(m.seed ^ seeded.Mix64(uint64(epoch)^0x6a09e667f3bcc909) ^ seeded.Mix64(uint64(j)+0x3c6ef372fe94f82b))
	u := float64(x>>11) / (1 << 53)
	for k, c := range m.cum[:len(m.cum)-1] {
		if u < c {
			return k
		}
	}
	return len(m.cum) - 1
}

// innerEpoch is the epoch of pass r of an input in outer epoch e.
func innerEpoch(e int, r int64) int { return e + int(r<<32) }

// reader returns the reader of input k's pass round.
func (m *mix[T]) reader(k int, round int64) source.Reader[T] {
	if round == m.rounds[k] && m.first[k] != nil {
		return m.first[k]
	}
	return m.readers[k]
}

func (m *mix[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		ctx, epoch := m.epochs.Start(ctx)
		m.log.start(epoch)
		k := len(m.readers)
		pulls := make([]*chunkPuller[T], k)
		defer func() {
			for _, p := range pulls {
				if p != nil {
					p.stop()
				}
			}
		}()
		round := append([]int64(nil), m.rounds...)
		pos := make([]int64, k) // samples of input k's current pass taken
		done := ctx.Done()
		for j := m.start; m.length == 0 || j < m.length; {
			if scope.Stopped(done, int(j-m.start)) {
				yieldErr(yield, ctx.Err())
				return
			}
			c := m.choose(epoch, j)
			if pulls[c] == nil {
				pulls[c] = pullChunks(source.WithEpoch(ctx, innerEpoch(epoch, round[c])), m.reader(c, round[c]))
				pos[c] = 0
			}
			v, err, ok := pulls[c].get()
			switch {
			case err != nil:
				yieldErr(yield, err)
				return
			case !ok:
				m.log.ended(epoch, c, round[c], pos[c])
				if m.length == 0 {
					m.log.stopped(epoch, j)
					return
				}
				if fresh := round[c] != m.rounds[c] || m.first[c] == nil; fresh && pos[c] == 0 {
					yieldErr(yield, fmt.Errorf("stage.Mix: input %d, pass %d of epoch %d: %w", c, round[c], epoch, ErrEmptyInput))
					return
				}
				pulls[c].stop()
				pulls[c] = nil
				round[c]++
				continue // the same choice, from the input's next pass
			}
			pos[c]++
			j++
			if !yield(v, nil) {
				return
			}
		}
	}
}

// StateAt returns {mix(...), [n, choice position, passes ended of each
// input], every input's state}: the choices of the first n samples are
// replayed, each input's count within its pass following the lengths
// that the pass of epoch saw its inputs end at. The count n is kept as
// it is, also past the end of the pass (the upstream of a batch after
// its short last batch), where the choice position stops: a checkpoint
// compares the count with the step, and a pipeline that has not run the
// epoch cannot know where it ends.
func (m *mix[T]) StateAt(epoch int, n int64) (source.State, error) {
	if n < 0 {
		return source.State{}, fmt.Errorf("stage.Mix: state after %d samples", n)
	}
	end := m.start + n
	if m.length > 0 {
		end = min(end, max(m.length, m.start))
	}
	lens, stop := m.log.get(epoch)
	if m.length == 0 && stop >= 0 {
		end = min(end, stop) // past the end of a pass that stopped
	}
	round := append([]int64(nil), m.rounds...)
	pos := make([]int64, len(m.readers))
	limit := make([]int64, len(m.readers)) // the length of input k's pass round[k], if it ended
	known := func(k int) int64 {
		if l, ok := lens[passKey{k, round[k]}]; ok {
			return l
		}
		return math.MaxInt64
	}
	for k := range limit {
		limit[k] = known(k)
	}
	for j := m.start; j < end; j++ {
		c := m.choose(epoch, j)
		for pos[c] >= limit[c] { // the pass had ended: this sample is from the next
			round[c]++
			pos[c] = 0
			limit[c] = known(c)
		}
		pos[c]++
	}
	st := source.State{Kind: m.kind, Pos: append([]int64{m.count + n, end}, round...), In: make([]source.State, len(m.readers))}
	for k := range m.readers {
		in, err := source.StateOf(m.reader(k, round[k]), innerEpoch(epoch, round[k]), pos[k])
		if err != nil {
			return source.State{}, fmt.Errorf("stage.Mix: input %d: %w", k, err)
		}
		st.In[k] = in
	}
	return st, nil
}

// Resume returns the mix continuing at the state's choice position, each
// input resumed from its state in its pass.
func (m *mix[T]) Resume(st source.State) (source.Reader[T], error) {
	if err := st.Check(m.kind, 2+len(m.readers), len(m.readers)); err != nil {
		return nil, err
	}
	switch {
	case st.Pos[1] > st.Pos[0]:
		return nil, &source.StateError{Want: m.kind, Got: st, Field: "pos[1]", Why: fmt.Sprintf("choice %d after %d samples", st.Pos[1], st.Pos[0])}
	case m.length > 0 && st.Pos[1] > m.length:
		return nil, &source.StateError{Want: m.kind, Got: st, Field: "pos[1]", Why: fmt.Sprintf("position %d is past the end of the pass (%d samples)", st.Pos[1], m.length)}
	}
	r := &mix[T]{readers: m.readers, first: make([]source.Reader[T], len(m.readers)), rounds: st.Pos[2:],
		count: st.Pos[0], start: st.Pos[1], cum: m.cum, seed: m.seed, length: m.length, kind: m.kind, log: new(mixLog)}
	if m.length == 0 {
		for k, p := range r.rounds {
			if p != 0 {
				return nil, &source.StateError{Want: m.kind, Got: st, Field: fmt.Sprintf("pos[%d]", k+2), Why: "an input re-iterated by a mix that stops at the first input to end"}
			}
		}
	}
	for k, in := range st.In {
		first, err := source.ResumeFrom(m.readers[k], in)
		if err != nil {
			return nil, err
		}
		r.first[k] = first
	}
	return r, nil
}

// passKey names pass round of input k.
type passKey struct {
	k     int
	round int64
}

// mixLog records, for the passes of recent epochs, how long each input's
// pass turned out to be and where a pass stopped, which StateAt needs to
// place the choices it replays. It holds a few numbers per input pass.
type mixLog struct {
	mu     sync.Mutex
	epochs map[int]*mixEpoch
}

type mixEpoch struct {
	lens map[passKey]int64
	stop int64 // the choice at which the pass stopped, or -1
}

// start begins a pass of epoch: it forgets an earlier pass of the same
// epoch and the epochs before the previous one.
func (l *mixLog) start(epoch int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epochs == nil {
		l.epochs = map[int]*mixEpoch{}
	}
	for e := range l.epochs {
		if e < epoch-1 {
			delete(l.epochs, e)
		}
	}
	l.epochs[epoch] = &mixEpoch{lens: map[passKey]int64{}, stop: -1}
}

func (l *mixLog) ended(epoch, k int, round, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.epochs[epoch]; e != nil {
		e.lens[passKey{k, round}] = n
	}
}

func (l *mixLog) stopped(epoch int, j int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.epochs[epoch]; e != nil {
		e.stop = j
	}
}

// get returns a copy of what the pass of epoch recorded.
func (l *mixLog) get(epoch int) (map[passKey]int64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.epochs[epoch]
	if e == nil {
		return nil, -1
	}
	lens := make(map[passKey]int64, len(e.lens))
	for k, v := range e.lens {
		lens[k] = v
	}
	return lens, e.stop
}
