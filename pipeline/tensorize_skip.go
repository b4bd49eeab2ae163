package pipeline

import (
	"context"
	"iter"
	"sync"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// skipPoint is a place in a pass of Tensorize under OnBad, after n batches
// yielded: the next row to read is row row of the pass's batch batch (of
// the batch step), and seen, skipped and good are the pass's counts of
// samples so far. A dropped sample moves the later batches' boundaries,
// so where batch n ends cannot be computed from n: the pass records it.
type skipPoint struct {
	n, batch, row       int64
	seen, skipped, good int64
}

// skipPointLen is the length of a skipPoint's encoding in a state's Pos.
const skipPointLen = 6

// skipLogLen bounds the points a skipLog keeps: a checkpoint asks for the
// point of the consumer's batch, which is behind the step's by what the
// steps after it hold (a Buffered step, a prefetch); an older one is
// resumed by replay.
const skipLogLen = 1024

// skipLog holds the points recorded by the latest passes, by epoch.
type skipLog struct {
	mu     sync.Mutex
	epochs [2]int
	points [2]map[int64]skipPoint // by n; [0] the latest pass
}

// start begins the points of a pass of epoch ep.
func (l *skipLog) start(ep int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.epochs[1], l.points[1] = l.epochs[0], l.points[0]
	l.epochs[0], l.points[0] = ep, make(map[int64]skipPoint)
}

// add records p in the points of the latest pass, forgetting the one
// skipLogLen batches before it.
func (l *skipLog) add(p skipPoint) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.points[0][p.n] = p
	delete(l.points[0], p.n-skipLogLen)
}

// at returns the point after batch n of a pass of epoch ep, if recorded.
func (l *skipLog) at(ep int, n int64) (skipPoint, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, m := range l.points {
		if m != nil && l.epochs[i] == ep {
			p, ok := m[n]
			return p, ok
		}
	}
	return skipPoint{}, false
}

// skipResumer is the step "tensorize" under a bad-record policy: each pass
// records where every batch it yields ends, so that a state taken after
// batch n resumes the batch step at the batch that holds the next row,
// drops the rows before it, and counts on from the pass's counts, instead
// of assembling the pass's earlier batches again. A state whose point was
// not recorded (a checkpoint of another process, or of a batch more than
// skipLogLen behind the step) holds the count alone, and resumes by
// replay: exact, as every state is.
type skipResumer[T any] struct {
	tz     *tensorizer[T]
	root   source.Reader[batch.Batch[T]] // the batch step, for replay states
	up     source.Reader[batch.Batch[T]] // the batch step, resumed at from.batch
	mapped func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (assembled, error)) source.Reader[assembled]
	from   skipPoint // where a pass starts
	drop   int64     // batches of a pass not yielded (a replay)
	epochs source.Epochs
	log    *skipLog
}

func (r *skipResumer[T]) All(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
	return func(yield func(*tensor.Batch, error) bool) {
		ctx, ep := r.epochs.Start(ctx)
		r.log.start(ep)
		n := r.from.n
		r.tz.pass(ctx, r.up, r.mapped, r.from, r.log.add, func(t *tensor.Batch, err error) bool {
			if err == nil {
				if n++; n <= r.drop {
					t.Release()
					return true
				}
			}
			return yield(t, err)
		})
	}
}

// StateAt returns {tensorize, [n batch row seen skipped good], the batch
// step at batch} when the point after the pass's n-th batch is recorded,
// else the replay state {tensorize, [n], the batch step at its start}; n
// counts the batches of the whole pass.
func (r *skipResumer[T]) StateAt(epoch int, n int64) (source.State, error) {
	n += r.from.n
	if n == r.from.n && r.drop == 0 {
		return r.pointState(epoch, r.from)
	}
	if p, ok := r.log.at(epoch, n); ok {
		return r.pointState(epoch, p)
	}
	in, err := source.StateOf(r.root, epoch, 0)
	if err != nil {
		return source.State{}, err
	}
	return source.State{Kind: "tensorize", Pos: []int64{n}, In: []source.State{in}}, nil
}

// pointState returns the state of point p: the batch step's is asked of
// the reader the pass reads, which counts from r.from.batch.
func (r *skipResumer[T]) pointState(epoch int, p skipPoint) (source.State, error) {
	in, err := source.StateOf(r.up, epoch, p.batch-r.from.batch)
	if err != nil {
		return source.State{}, err
	}
	return source.State{Kind: "tensorize", Pos: []int64{p.n, p.batch, p.row, p.seen, p.skipped, p.good},
		In: []source.State{in}}, nil
}

// Resume returns the step continuing the pass st was taken from: from its
// point, or by replay.
func (r *skipResumer[T]) Resume(st source.State) (source.Reader[*tensor.Batch], error) {
	if len(st.Pos) == 1 {
		if err := st.Check("tensorize", 1, 1); err != nil {
			return nil, err
		}
		up, err := source.ResumeFrom(r.root, st.In[0])
		if err != nil {
			return nil, err
		}
		return &skipResumer[T]{tz: r.tz, root: r.root, up: up, mapped: r.mapped, drop: st.Pos[0], log: new(skipLog)}, nil
	}
	if err := st.Check("tensorize", skipPointLen, 1); err != nil {
		return nil, err
	}
	pos := st.Pos
	p := skipPoint{n: pos[0], batch: pos[1], row: pos[2], seen: pos[3], skipped: pos[4], good: pos[5]}
	if p.seen < p.skipped || p.good > p.seen {
		return nil, &source.StateError{Want: "tensorize", Got: st, Why: "more samples skipped or kept than seen"}
	}
	up, err := source.ResumeFrom(r.root, st.In[0])
	if err != nil {
		return nil, err
	}
	return &skipResumer[T]{tz: r.tz, root: r.root, up: up, mapped: r.mapped, from: p, log: new(skipLog)}, nil
}
