package pipeline

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/samber/lo"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/badrows"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/sinkrows"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// TensorizeOption configures Tensorize and TensorizeBatches.
type TensorizeOption = option.Option[tensorizeConfig]

type tensorizeConfig struct {
	workers int
	bad     *source.SkipPolicy
}

// OnBad sets the bad-record policy of the samples whose fill fails (a
// field made by sink.Fill returned an error wrapping tensorfeed.ErrBadData,
// an image that does not decode): such a sample is dropped, counted (the
// Skipped of the step's Stats, and the policy's) and logged at warn level
// with its error, while the policy allows it, and the rows after it close
// up: the later samples move up, into the batch being filled, so every
// batch but the pass's last is full and the batches are those of the data
// without the bad samples, for any number of workers. A pass that ends
// with a short batch treats it by Tensorize's last-batch policy (Keep and
// RollOver yield it, Drop drops it, Pad and RoundBatch repeat its first
// rows as padding). A pass all of whose samples were dropped ends with an
// error wrapping source.ErrTooManyBad.
//
// Without OnBad (or with nil) the first failed fill ends the pass with its
// error, after the batches before its own. A fill error that does not wrap
// tensorfeed.ErrBadData always does. A dropped sample moves the later
// batches' boundaries, so with a policy each pass records where its
// batches end: a run resumes at the batch step's batch that holds the next
// row, assembles that one batch again and drops the rows delivered before,
// and its skip counts go on from the stopped pass's (a checkpoint of a
// batch the pass no longer holds a record of resumes by replay: exact, at
// the cost of assembling the batches before it again).
func OnBad(p *source.SkipPolicy) TensorizeOption {
	return option.New(func(c *tensorizeConfig) { c.bad = p })
}

// Workers assembles the batches on n goroutines, each filling whole
// batches, instead of on the goroutine that reads the step: the copy of
// every sample into its rows (an MNIST digit's 784 pixels scaled through a
// table, its label) is most of a feed's work once the data is in memory,
// and it scales with the cores. The batches come in their order, the same
// for any n, and a pass's state (Checkpoint, Resume) is the same as with
// one goroutine, so a run stopped with n workers resumes with any other
// number. Workers(Auto) sizes the step as the pass runs (see Autotune).
//
// The step holds at most 4n batches that the consumer has not received,
// assembled or waiting for a worker (with 2n, 4 workers on 16 cores made
// 4.4 M MNIST samples/s instead of 6.3: a batch done early waits for the
// one before it), and no more than fit in 128 MiB, at least one: large
// batches (77 MB of images) are few, and the workers share their rows.
// With n > 1 it runs ahead of the consumer by itself, so a Buffered behind
// it is not needed. The default
// is 1: the batches are assembled on the goroutine that reads the step.
// With n > 1 a panic in a field's fill (sink.Float32 ...) reaches the
// consumer as a *tensorfeed.PanicError, after the batches before its own.
// Workers panics when n < 1 and n is not Auto.
func Workers(n int) TensorizeOption {
	if n < 1 && n != Auto {
		panic(fmt.Sprintf("pipeline: Workers(%d): need at least 1 (or Auto)", n))
	}
	return option.New(func(c *tensorizeConfig) { c.workers = n })
}

// Tensorize groups the samples of p into batches of the sink's batch size
// (the one given to sink.New, written nowhere else) and assembles every
// batch into named, shaped tensors as described by s (s.ProvideData and
// s.ProvideLabel are known before the first batch). last decides what
// happens to a short last batch: batch.Keep, batch.Drop, batch.Pad or
// batch.RollOver (see batch.Of). Workers(n) assembles batches on n
// goroutines.
//
// It adds two steps, "batch" (batch.Of, recycling its sample slices) and
// "tensorize" (Sink.Assemble of every batch), so Stats shows both. The consumer
// owns every *tensor.Batch and hands its memory back with Release; that is
// safe behind Buffered, which is where prefetching belongs:
//
//	feed := pipeline.Tensorize(samples, s, batch.Keep).Buffered(4)
//	feed := pipeline.Tensorize(samples, s, batch.Keep, pipeline.Workers(2)) // runs ahead by itself
func Tensorize[T any](p *Pipe[T], s *sink.Sink[T], last batch.Policy, opts ...TensorizeOption) *Pipe[*tensor.Batch] {
	b := thenSync(p, "batch", batch.Of[T](p, s.BatchSize(), last, batch.Recycling()))
	return tensorize(b, s, last, opts)
}

// TensorizeBatches adds the step "tensorize" alone: batches made by Batch
// or any batch reader (PaddlePaddle's custom_batch_reader, added with
// Apply) become tensors as described by s; no batch may hold more samples than the
// sink's batch size. Workers(n) assembles them on n goroutines (see
// Tensorize). Step name "tensorize".
func TensorizeBatches[T any](p *Pipe[batch.Batch[T]], s *sink.Sink[T], opts ...TensorizeOption) *Pipe[*tensor.Batch] {
	return tensorize(p, s, batch.Keep, opts)
}

// tensorize adds the step "tensorize": every batch assembled by s, on the
// pass's goroutine with one worker, through an ordered parallel map with
// more. last is the policy of a pass's short last batch after OnBad
// dropped samples.
func tensorize[T any](p *Pipe[batch.Batch[T]], s *sink.Sink[T], last batch.Policy, opts []TensorizeOption) *Pipe[*tensor.Batch] {
	cfg := tensorizeConfig{workers: 1}
	option.Apply(&cfg, opts)
	tz := &tensorizer[T]{s: s, last: last, bad: cfg.bad}
	var q *Pipe[*tensor.Batch]
	// The workers fill whole batches; a batch's Fill fields (an image
	// decoded into each row) are also split among as many goroutines, so
	// that an epoch of fewer batches than workers, and the start and end
	// of every epoch, keep them busy.
	rowWorkers := cfg.workers
	if cfg.workers == Auto {
		rowWorkers = tuningOf(p.node.cfg).cores
	}
	splits := sinkrows.SetWorkers(s, rowWorkers)
	fit := batchesThatFit(s)
	switch cfg.workers {
	case 1:
		q = thenSync(p, "tensorize", tz.reader(p, func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (assembled, error)) source.Reader[assembled] {
			return source.Func[assembled](func(ctx context.Context) iter.Seq2[assembled, error] {
				return func(yield func(assembled, error) bool) {
					for b, err := range up.All(ctx) {
						var a assembled
						if err == nil {
							a, err = f(b)
						}
						if !yield(a, err) || err != nil {
							return
						}
					}
				}
			})
		}))
	case Auto: // sized as the pass runs: see Autotune
		t := tuningOf(p.node.cfg)
		g := newGate(t)
		q = then(p, "tensorize", tz.reader(p, func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (assembled, error)) source.Reader[assembled] {
			return gatedMap(t, g, up, f, []ParallelOption{stage.InFlight(min(4*t.cores, fit))})
		}))
		q.node.self, q.node.tuned = selfConcurrent, func() string { return fmt.Sprintf("auto %d/%d", g.now.Load(), g.t.cores) }
	default:
		n := cfg.workers
		if splits {
			n = min(n, fit) // the workers share the rows of fewer batches
		}
		inFlight := max(n, min(4*n, fit))
		q = then(p, "tensorize", tz.reader(p, func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (assembled, error)) source.Reader[assembled] {
			return stage.ParallelMap(up, n, f, stage.InFlight(inFlight))
		}))
		q.node.self = selfConcurrent
	}
	if cfg.bad != nil {
		q.node.skipped = tz.skipped.Load
	}
	return q
}

// maxInFlightBytes bounds the memory of the batches that Tensorize's
// workers hold at once (being assembled, or assembled and waiting for the
// ones before them): 4 per worker while they fit, fewer when batches are
// large, at least one: one batch of 77 MB (128 images of 3x224x224
// float32). With a Fill field the workers then share the rows of those few
// batches instead of each filling a batch of its own.
const maxInFlightBytes = 128 << 20

// batchesThatFit returns how many of s's batches fit maxInFlightBytes, at
// least one.
func batchesThatFit[T any](s *sink.Sink[T]) int {
	bytes := 0
	for _, d := range append(s.ProvideData(), s.ProvideLabel()...) {
		bytes += d.DType.Size() * lo.Reduce(d.Shape, func(p, x, _ int) int { return p * x }, 1)
	}
	return max(1, maxInFlightBytes/max(1, bytes))
}

// assembleError marks an error of Sink.Assemble on its way through the
// map, so that the pass can name the batch and leave the upstream's errors
// as they are.
type assembleError struct{ err error }

func (e *assembleError) Error() string { return e.err.Error() }

// assembled is one batch out of the map: its tensors, and the rows whose
// fill failed (nil when none did).
type assembled struct {
	t   *tensor.Batch
	bad *badrows.Error
}

// tensorizer is the step "tensorize" of one Tensorize: the sink, the
// last-batch policy and bad-record policy, and the count of what it
// skipped.
type tensorizer[T any] struct {
	s       *sink.Sink[T]
	last    batch.Policy
	bad     *source.SkipPolicy
	skipped atomic.Int64
}

// reader assembles every batch of r with the sink, in order, through the
// map that mapped builds over a pass's upstream (the pass itself for one
// worker, an ordered parallel map for more): the same batches, errors,
// logs and state whatever the map. Each batch is handed back
// (batch.Batch.Release) once assembled, so that a batch.Of built with
// batch.Recycling fills the same Samples slice again. An error of the
// upstream ends the pass as it is; a batch that does not fit the sink ends
// it with an error naming the batch's index in the pass; a failed fill is
// the bad-record policy's (see OnBad).
//
// The state is the step's alone, {tensorize, the batches' state},
// whatever the number of workers: an ordered map yields one batch per
// batch read, and what the workers hold when a run stops is assembled
// again after a resume. With a bad-record policy a dropped sample shifts
// the batches, so the step records where each batch ended (skipResumer).
func (tz *tensorizer[T]) reader(r source.Reader[batch.Batch[T]],
	mapped func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (assembled, error)) source.Reader[assembled]) source.Reader[*tensor.Batch] {
	pass := func(up source.Reader[batch.Batch[T]]) source.Reader[*tensor.Batch] {
		return source.Func[*tensor.Batch](func(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
			return func(yield func(*tensor.Batch, error) bool) { tz.pass(ctx, up, mapped, skipPoint{}, nil, yield) }
		})
	}
	if tz.bad != nil {
		return &skipResumer[T]{tz: tz, root: r, up: r, mapped: mapped, log: new(skipLog)}
	}
	return source.Follow("tensorize", r, pass)
}

// pass runs one pass of the step, or the rest of one from the point from
// (up then starts at from.batch; the zero point is the start), calling
// record with the point after every batch it yields when record is set.
func (tz *tensorizer[T]) pass(ctx context.Context, up source.Reader[batch.Batch[T]],
	mapped func(up source.Reader[batch.Batch[T]], f func(batch.Batch[T]) (assembled, error)) source.Reader[assembled],
	from skipPoint, record func(skipPoint), yield func(*tensor.Batch, error) bool) {
	s := tz.s
	logger := tensorfeed.Logger(ctx)
	c := closer{count: (*skipcount.Policy)(tz.bad).PassFrom(-1, from.seen, from.skipped, logger), skipped: &tz.skipped, yield: yield,
		n: int(from.n), good: int(from.good), at: from.batch - 1, skipRows: int(from.row), record: record}
	defer func() {
		if ce := logger.Check(zap.DebugLevel, "sink: tensorize pass ended"); ce != nil {
			ce.Write(zap.Int("batches", c.n), zap.Int("samples", c.samples))
		}
	}()
	assemble := func(b batch.Batch[T]) (assembled, error) {
		if len(b.Samples) < s.BatchSize() || b.Padded > 0 {
			if ce := logger.Check(zap.DebugLevel, "sink: short or padded batch"); ce != nil {
				ce.Write(zap.Int("samples", len(b.Samples)), zap.Int("padded", b.Padded), zap.Int("batch_size", s.BatchSize()))
			}
		}
		t, err := s.Assemble(b)
		b.Release() // Assemble copied it
		if bad, ok := err.(*badrows.Error); ok {
			return assembled{t: bad.Batch, bad: bad}, nil
		}
		if err != nil {
			return assembled{}, &assembleError{err}
		}
		return assembled{t: t}, nil
	}
	read := 0 // batches read from the map
	for a, err := range mapped(up, assemble).All(ctx) {
		if err != nil {
			if ae, ok := err.(*assembleError); ok {
				err = fmt.Errorf("batch %d of the pass: %w", read, ae.err)
			}
			c.release()
			yield(nil, err)
			return
		}
		read++
		c.at++
		if !c.add(a) {
			return
		}
	}
	c.end(tz.last)
}

// closer yields the batches of a pass in order, dropping the rows whose
// fill failed (as its skip counter allows) and closing up the rows after
// them: a row moves up within its batch, or into the batch being filled.
// While nothing was dropped every batch goes out as assembled, with no
// copy.
type closer struct {
	count   *skipcount.Counter
	skipped *atomic.Int64
	yield   func(*tensor.Batch, error) bool
	cur     *tensor.Batch // the batch being filled, nil between batches
	k       int           // rows of cur filled
	n       int           // batches yielded
	samples int           // rows yielded, padding included
	good    int           // rows kept

	// The point of the pass after the batch being sent (see skipPoint):
	// at is the index in the pass of the batch being added, of rows rows,
	// next the row of it after the one being added. The first skipRows
	// rows of the first batch added were yielded before a resume point.
	at       int64
	rows     int
	next     int
	skipRows int
	record   func(skipPoint)
}

// add takes the next batch of the map. It reports whether the pass goes
// on.
func (c *closer) add(a assembled) bool {
	t := a.t
	rows, pad := t.Len(), t.Padded
	skip := c.skipRows
	c.skipRows, c.rows = 0, rows
	if a.bad == nil && c.cur == nil && skip == 0 {
		for range rows {
			c.count.Good()
		}
		c.good += rows
		c.next = rows
		return c.send(t)
	}
	var bad []int
	if a.bad != nil {
		bad = a.bad.Rows
	}
	sent := false
	for i := range rows {
		c.next = i + 1
		if i < skip {
			// Yielded before the resume point, good or bad.
			if len(bad) > 0 && bad[0] == i {
				bad = bad[1:]
			}
			continue
		}
		if len(bad) > 0 && bad[0] == i {
			err := a.bad.Errs[len(a.bad.Rows)-len(bad)]
			bad = bad[1:]
			if !errors.Is(err, tensorfeed.ErrBadData) {
				c.fail(t, err)
				return false
			}
			if err := c.count.Bad(err); err != nil {
				c.fail(t, err)
				return false
			}
			c.skipped.Add(1)
			continue
		}
		c.count.Good()
		c.good++
		if c.cur == nil {
			c.cur, c.k = t, 0
			t.Padded = 0
		}
		if c.cur != t || c.k != i {
			copyRow(c.cur, c.k, t, i)
		}
		if i >= rows-pad {
			c.cur.Padded++
		}
		c.k++
		if c.k == c.cur.Len() {
			out := c.cur
			c.cur, sent = nil, sent || out == t
			if !c.send(out) {
				if !sent {
					t.Release()
				}
				return false
			}
		}
	}
	if !sent && c.cur != t {
		t.Release() // every row was dropped or moved into another batch
	}
	return true
}

// send yields a finished batch, after recording the point that follows
// it.
func (c *closer) send(t *tensor.Batch) bool {
	c.n++
	c.samples += t.Len()
	if c.record != nil {
		p := skipPoint{n: int64(c.n), batch: c.at, row: int64(c.next),
			seen: c.count.Seen(), skipped: c.count.Skipped(), good: int64(c.good)}
		if c.next >= c.rows { // the batch is used up: the next one, from its first row
			p.batch, p.row = c.at+1, 0
		}
		c.record(p)
	}
	return c.yield(t, nil)
}

// fail ends the pass with err, handing back the batches it holds.
func (c *closer) fail(t *tensor.Batch, err error) {
	if t != c.cur {
		t.Release()
	}
	c.release()
	c.yield(nil, err)
}

// release hands back the batch being filled.
func (c *closer) release() {
	if c.cur != nil {
		c.cur.Release()
		c.cur = nil
	}
}

// end finishes a pass that read all its batches: a batch left short by
// dropped samples goes by the last-batch policy, then the skip bound and
// a pass whose every sample was dropped are checked.
func (c *closer) end(last batch.Policy) {
	c.next = c.rows // every batch read is used up
	if t := c.cur; t != nil {
		c.cur = nil
		switch {
		case t.Padded == c.k:
			// Only padding is left: the samples it repeats were dropped
			// or are in the batches before.
			t.Release()
		case last == batch.Drop:
			t.Release()
		case last == batch.Pad || last == batch.RoundBatch:
			// Repeat the batch's first rows, as padding does.
			for i := c.k; i < t.Len(); i++ {
				copyRow(t, i, t, i-c.k)
				t.Padded++
			}
			if !c.send(t) {
				return
			}
		default:
			for i := range t.Data {
				t.Data[i] = t.Data[i].Rows(0, c.k, t.Data[i].Shape)
			}
			for i := range t.Label {
				t.Label[i] = t.Label[i].Rows(0, c.k, t.Label[i].Shape)
			}
			if !c.send(t) {
				return
			}
		}
	}
	if err := c.count.End(); err != nil {
		c.yield(nil, err)
		return
	}
	if c.good == 0 && c.count.Skipped() > 0 {
		c.yield(nil, fmt.Errorf("tensorize: all %d samples of the pass were bad, none could be read: %w",
			c.count.Skipped(), source.ErrTooManyBad))
	}
}

// copyRow copies row s of src into row k of dst, every tensor, both
// batches of one sink.
func copyRow(dst *tensor.Batch, k int, src *tensor.Batch, s int) {
	for i := range dst.Data {
		copyTensorRow(&dst.Data[i], k, &src.Data[i], s)
	}
	for i := range dst.Label {
		copyTensorRow(&dst.Label[i], k, &src.Label[i], s)
	}
}

func copyTensorRow(dst *tensor.Tensor, k int, src *tensor.Tensor, s int) {
	e := 1
	for _, d := range dst.Shape[1:] {
		e *= d
	}
	switch dst.DType {
	case sample.Float32:
		copy(dst.F32[k*e:(k+1)*e], src.F32[s*e:(s+1)*e])
	case sample.Int32:
		copy(dst.I32[k*e:(k+1)*e], src.I32[s*e:(s+1)*e])
	case sample.Int64:
		copy(dst.I64[k*e:(k+1)*e], src.I64[s*e:(s+1)*e])
	case sample.Uint8:
		copy(dst.U8[k*e:(k+1)*e], src.U8[s*e:(s+1)*e])
	case sample.Int8:
		copy(dst.I8[k*e:(k+1)*e], src.I8[s*e:(s+1)*e])
	}
}
