package imagerec

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"slices"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/stage"
)

// Iter reads batches of images from an image RecordIO file, as MXNet's
// ImageRecordIter does: it decodes, augments and normalises every image in
// parallel and yields each batch as a *sink.Tensors with one data tensor
// (N, C, H, W) and one label tensor (N) or (N, LabelWidth).
//
// Each pass is one epoch. The result is deterministic: image i of epoch e
// draws its augmentation from source.NewRand(seed, e, i), and the batches
// keep the file's order (or the shuffled one), so the output is the same
// for any number of threads.
//
// Every image is written straight into its row of the batch tensor. A
// batch's tensors belong to the consumer; pass them to Recycle when done
// to let the Iter reuse their memory.
type Iter struct {
	cfg     *resolved
	proc    *processor
	batches source.Reader[batch.Batch[recordio.Record]]
	epochs  source.Epochs
	free    chan *sink.Tensors
	log     *zap.Logger
	idx     *recordio.Index // the .idx, checked against the .rec every pass
	skipped atomic.Int64
}

// NewIter checks cfg, reads the .lst and .idx files it names, and returns
// an Iter. Nothing else is opened until a pass starts. A bad Config gives
// an error that lists every problem.
func NewIter(cfg Config) (*Iter, error) {
	rc, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	d := &rc.Data
	var idx *recordio.Index
	if d.IdxPath != "" {
		if idx, err = recordio.ReadIndex(d.IdxPath); err != nil {
			return nil, err
		}
	}
	var records source.Reader[recordio.Record]
	switch {
	case d.Shuffle && idx != nil:
		records = &indexedRecords{path: d.RecPath, idx: idx, seed: d.Seed}
	default:
		records = recordio.Open(d.RecPath, recordio.Shard(d.NumParts, d.PartIndex))
		if d.Shuffle {
			records = stage.Shuffle(records, d.ShuffleBuffer, d.Seed)
		}
	}
	it := &Iter{
		cfg:     rc,
		proc:    newProcessor(rc),
		batches: batch.Of(records, rc.Batch.Size, rc.Batch.Last),
		free:    make(chan *sink.Tensors, max(rc.Backend.Prefetch, 0)+rc.Backend.Threads+2),
		log:     rc.Backend.Logger,
		idx:     idx,
	}
	return it, nil
}

// ProvideData describes the data tensor of a full batch.
func (it *Iter) ProvideData() []sink.Desc {
	s := it.cfg.Data.Shape
	return []sink.Desc{{Name: it.cfg.Data.DataName, Shape: []int{it.cfg.Batch.Size, s[0], s[1], s[2]},
		DType: it.cfg.Backend.DType}}
}

// ProvideLabel describes the label tensor of a full batch: (N) for one
// label per image, else (N, LabelWidth).
func (it *Iter) ProvideLabel() []sink.Desc {
	return []sink.Desc{{Name: it.cfg.Data.LabelName, Shape: it.labelShape(it.cfg.Batch.Size), DType: sample.Float32}}
}

func (it *Iter) labelShape(n int) []int {
	if w := it.cfg.Data.LabelWidth; w > 1 {
		return []int{n, w}
	}
	return []int{n}
}

// Recycle hands the memory of a batch back to the Iter, which may then
// overwrite it with a later batch. Call it only when nothing reads t any
// more. Tensors not made by this Iter, or of another shape, are ignored.
func (it *Iter) Recycle(t *sink.Tensors) {
	if t == nil || len(t.Data) != 1 || len(t.Label) != 1 || t.Data[0].Rows() != it.cfg.Batch.Size {
		return
	}
	select {
	case it.free <- t:
	default:
	}
}

// newTensors returns tensors for a batch of n images, recycled when it can.
func (it *Iter) newTensors(n, padded int) *sink.Tensors {
	s := it.cfg.Data.Shape
	per := s[0] * s[1] * s[2]
	dt := it.cfg.Backend.DType
	if n == it.cfg.Batch.Size {
		select {
		case t := <-it.free:
			t.Padded = padded
			return t
		default:
		}
	}
	data := sink.Tensor{Name: it.cfg.Data.DataName, Shape: []int{n, s[0], s[1], s[2]}, DType: dt}
	if dt == sample.Uint8 {
		data.U8 = make([]uint8, n*per)
	} else {
		data.F32 = make([]float32, n*per)
	}
	label := sink.Tensor{Name: it.cfg.Data.LabelName, Shape: it.labelShape(n), DType: sample.Float32,
		F32: make([]float32, n*it.cfg.Data.LabelWidth)}
	return &sink.Tensors{Data: []sink.Tensor{data}, Label: []sink.Tensor{label}, Padded: padded}
}

// Skipped returns how many bad records the Iter's passes skipped under
// DataOptions.SkipBad, over all passes. It implements source.SkipCounted.
func (it *Iter) Skipped() int64 { return it.skipped.Load() }

// job is one image to process into row slot of out.
type job struct {
	rec  recordio.Record
	out  *sink.Tensors
	slot int
	last bool  // the batch's last row
	pad  bool  // a padding row (batch.Pad)
	err  error // the record is bad data: skip it or end the pass
}

// passIndexKey carries a pass's checked index offsets from All to the
// records reader, in the pass's context.
type passIndexKey struct{}

// partOffsets checks the index against the .rec file as it is now and
// returns the offsets of the records of this part, ascending.
func partOffsets(recPath string, idx *recordio.Index, numParts, partIndex int) ([]int64, error) {
	f, err := os.Open(recPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := recordio.ValidateIndex(f, st.Size(), recPath, idx); err != nil {
		return nil, err
	}
	lo, hi := recordio.ShardRange(st.Size(), numParts, partIndex)
	var offs []int64
	for i := range idx.Len() {
		if e := idx.Entry(i); e.Offset >= lo && e.Offset < hi {
			offs = append(offs, e.Offset)
		}
	}
	slices.Sort(offs)
	return offs, nil
}

// All returns one pass (epoch) over the data. Its first error (a bad
// record, an unreadable file, an .idx that does not match the .rec) is
// yielded once and ends the pass; record errors are *RecordError values.
// With DataOptions.SkipBad, bad records are skipped instead, within its
// bound (see DataOptions.SkipBad).
func (it *Iter) All(ctx context.Context) iter.Seq2[*sink.Tensors, error] {
	return func(yield func(*sink.Tensors, error) bool) {
		ep := it.epochs.Next(ctx)
		ctx := source.WithEpoch(ctx, ep)
		d := &it.cfg.Data
		it.log.Debug("imagerec: pass", zap.Int("epoch", ep), zap.String("rec", d.RecPath),
			zap.Int("threads", it.cfg.Backend.Threads), zap.String("decoder", it.cfg.Backend.Decoder.Name()))
		total := int64(-1)
		if it.idx != nil {
			// Check before the first sample: a stale or damaged index
			// would otherwise drop or repeat records without a word.
			offs, err := partOffsets(d.RecPath, it.idx, d.NumParts, d.PartIndex)
			if err != nil {
				yield(nil, err)
				return
			}
			ctx = context.WithValue(ctx, passIndexKey{}, offs)
			total = int64(len(offs))
		}
		jobs := source.Func[job](func(ctx context.Context) iter.Seq2[job, error] {
			return func(yield func(job, error) bool) {
				for b, err := range it.batches.All(ctx) {
					if err != nil {
						yield(job{}, err)
						return
					}
					n := len(b.Samples)
					t := it.newTensors(n, b.Padded)
					for i, rec := range b.Samples {
						if !yield(job{rec: rec, out: t, slot: i, last: i == n-1, pad: i >= n-b.Padded}, nil) {
							return
						}
					}
				}
			}
		})
		per := d.Shape[0] * d.Shape[1] * d.Shape[2]
		lw := d.LabelWidth
		work := func(j job) (job, error) {
			dt, l := &j.out.Data[0], &j.out.Label[0]
			lo, hi := j.slot*per, (j.slot+1)*per
			var f32 []float32
			var u8 []uint8
			if dt.DType == sample.Uint8 {
				u8 = dt.U8[lo:hi:hi]
			} else {
				f32 = dt.F32[lo:hi:hi]
			}
			err := it.proc.run(j.rec, ep, f32, u8, l.F32[j.slot*lw:(j.slot+1)*lw])
			j.rec.Data = nil
			if errors.Is(err, tensorfeed.ErrBadData) {
				// The collector decides, in order, whether to skip it.
				j.err, err = err, nil
			}
			return j, err
		}
		threads := it.cfg.Backend.Threads
		done := stage.ParallelMap(jobs, threads, work, stage.InFlight(max(2*threads, 8)))
		var out source.Reader[*sink.Tensors] = source.Func[*sink.Tensors](
			func(ctx context.Context) iter.Seq2[*sink.Tensors, error] {
				return func(yield func(*sink.Tensors, error) bool) {
					c := collector{it: it, per: per, lw: lw,
						count: d.SkipBad.Pass(total, it.log), yield: yield}
					for j, err := range done.All(ctx) {
						if err != nil {
							yield(nil, err)
							return
						}
						if !c.add(j) {
							return
						}
					}
					c.end(total)
				}
			})
		if p := it.cfg.Backend.Prefetch; p > 0 {
			out = stage.Buffered(out, p)
		}
		for t, err := range out.All(ctx) {
			if !yield(t, err) || err != nil {
				return
			}
		}
	}
}

// collector assembles the rows that come back from the workers, in order,
// into batches. Rows are decoded straight into the tensors of their batch;
// while no record was skipped every row is already in place and nothing is
// copied. After a skip, later rows move up to close the gap (within their
// own batch, or into the tail of the batch being filled), so the batches
// hold the same images in the same order whatever the number of threads.
type collector struct {
	it      *Iter
	per, lw int
	count   *source.SkipCounter
	yield   func(*sink.Tensors, error) bool
	cur     *sink.Tensors // the batch being filled, nil between batches
	k       int           // rows of cur filled
	sent    *sink.Tensors // the batch yielded last
	good    int64
}

// add takes one finished row. It reports whether the pass goes on.
func (c *collector) add(j job) bool {
	if j.err != nil {
		if err := c.count.Bad(j.err); err != nil {
			c.yield(nil, err)
			return false
		}
		c.it.skipped.Add(1)
	} else {
		c.count.Good()
		c.good++
		if c.cur == nil {
			c.cur, c.k = j.out, 0
			c.cur.Padded = 0
		}
		if c.cur != j.out || c.k != j.slot {
			c.copyRow(c.cur, c.k, j.out, j.slot)
		}
		c.k++
		if j.pad {
			c.cur.Padded++
		}
		if c.k == c.cur.Data[0].Rows() {
			t := c.cur
			c.cur, c.sent = nil, t
			if !c.yield(t, nil) {
				return false
			}
		}
	}
	if j.last && j.out != c.cur && j.out != c.sent {
		// Every row of j's batch was skipped or moved into another.
		c.it.Recycle(j.out)
	}
	return true
}

// end finishes a pass that read all its records: a batch left short by
// skipped records is handled by the last-batch policy, and the skip bound
// and the empty pass are checked.
func (c *collector) end(total int64) {
	if t := c.cur; t != nil {
		switch c.it.cfg.Batch.Last {
		case batch.Drop:
			c.it.Recycle(t)
		case batch.Pad:
			// Repeat the batch's first rows, as padding does.
			for i := c.k; i < t.Data[0].Rows(); i++ {
				c.copyRow(t, i, t, i-c.k)
				t.Padded++
			}
			if !c.yield(t, nil) {
				return
			}
		default:
			c.shrink(t, c.k)
			if !c.yield(t, nil) {
				return
			}
		}
	}
	if err := c.count.End(); err != nil {
		c.yield(nil, err)
		return
	}
	if total > 0 && c.good == 0 {
		c.yield(nil, fmt.Errorf("imagerec: %s: the index %s lists %d records for this pass, but none could be read: %w",
			c.it.cfg.Data.RecPath, c.it.cfg.Data.IdxPath, total, source.ErrTooManyBad))
	}
}

// copyRow copies row s of src (data and labels) to row k of dst.
func (c *collector) copyRow(dst *sink.Tensors, k int, src *sink.Tensors, s int) {
	dd, sd := &dst.Data[0], &src.Data[0]
	if dd.DType == sample.Uint8 {
		copy(dd.U8[k*c.per:(k+1)*c.per], sd.U8[s*c.per:(s+1)*c.per])
	} else {
		copy(dd.F32[k*c.per:(k+1)*c.per], sd.F32[s*c.per:(s+1)*c.per])
	}
	copy(dst.Label[0].F32[k*c.lw:(k+1)*c.lw], src.Label[0].F32[s*c.lw:(s+1)*c.lw])
}

// shrink cuts t down to its first n rows.
func (c *collector) shrink(t *sink.Tensors, n int) {
	dd, l := &t.Data[0], &t.Label[0]
	dd.Shape = slices.Clone(dd.Shape)
	dd.Shape[0] = n
	if dd.DType == sample.Uint8 {
		dd.U8 = dd.U8[:n*c.per]
	} else {
		dd.F32 = dd.F32[:n*c.per]
	}
	l.Shape = slices.Clone(l.Shape)
	l.Shape[0] = n
	l.F32 = l.F32[:n*c.lw]
}

// indexedRecords reads the records of one .rec file through its .idx, in
// a new random order every epoch. The offsets of a pass come checked from
// Iter.All through the context.
type indexedRecords struct {
	path   string
	idx    *recordio.Index
	seed   uint64
	epochs source.Epochs
}

func (ir *indexedRecords) All(ctx context.Context) iter.Seq2[recordio.Record, error] {
	return func(yield func(recordio.Record, error) bool) {
		ep := ir.epochs.Next(ctx)
		offsets, ok := ctx.Value(passIndexKey{}).([]int64)
		if !ok {
			yield(recordio.Record{}, errors.New("imagerec: internal error: an indexed pass without its checked index"))
			return
		}
		perm := source.NewRand(ir.seed, ep, -1).Perm(len(offsets))
		f, err := os.Open(ir.path)
		if err != nil {
			yield(recordio.Record{}, err)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			yield(recordio.Record{}, err)
			return
		}
		// The index, checked, tells where each record ends: one ReadAt
		// reads a record.
		rr := recordio.NewRandomReader(f, st.Size(), ir.idx)
		rr.Name = ir.path
		done := ctx.Done()
		for n, i := range perm {
			if n%64 == 0 {
				select {
				case <-done:
					yield(recordio.Record{}, ctx.Err())
					return
				default:
				}
			}
			off := offsets[i]
			data, err := rr.At(off)
			if err != nil {
				yield(recordio.Record{}, fmt.Errorf("imagerec: record %d: %w", i, err))
				return
			}
			if !yield(recordio.Record{File: ir.path, Offset: off, Index: i, Data: data}, nil) {
				return
			}
		}
	}
}
