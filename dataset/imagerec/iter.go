package imagerec

import (
	"context"
	"fmt"
	"iter"
	"os"
	"slices"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec/recordio"
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
	var records source.Reader[recordio.Record]
	switch {
	case d.Shuffle && d.IdxPath != "":
		ir, err := newIndexedRecords(d.RecPath, d.IdxPath, d.Seed, d.NumParts, d.PartIndex)
		if err != nil {
			return nil, err
		}
		records = ir
	default:
		records = recordio.Open(d.RecPath, recordio.Partition(d.NumParts, d.PartIndex),
			recordio.WithLogger(rc.Backend.Logger))
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

// job is one image to process into row slot of out.
type job struct {
	rec  recordio.Record
	out  *sink.Tensors
	slot int
	last bool // the batch's last row
}

// All returns one pass (epoch) over the data. Its first error (a bad
// record, an unreadable file) is yielded once and ends the pass; record
// errors are *RecordError values.
func (it *Iter) All(ctx context.Context) iter.Seq2[*sink.Tensors, error] {
	return func(yield func(*sink.Tensors, error) bool) {
		ep := it.epochs.Next(ctx)
		ctx := source.WithEpoch(ctx, ep)
		it.log.Debug("imagerec: pass", zap.Int("epoch", ep), zap.String("rec", it.cfg.Data.RecPath),
			zap.Int("threads", it.cfg.Backend.Threads), zap.String("decoder", it.cfg.Backend.Decoder.Name()))
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
						if !yield(job{rec: rec, out: t, slot: i, last: i == n-1}, nil) {
							return
						}
					}
				}
			}
		})
		per := it.cfg.Data.Shape[0] * it.cfg.Data.Shape[1] * it.cfg.Data.Shape[2]
		lw := it.cfg.Data.LabelWidth
		work := func(j job) (job, error) {
			d, l := &j.out.Data[0], &j.out.Label[0]
			lo, hi := j.slot*per, (j.slot+1)*per
			var f32 []float32
			var u8 []uint8
			if d.DType == sample.Uint8 {
				u8 = d.U8[lo:hi:hi]
			} else {
				f32 = d.F32[lo:hi:hi]
			}
			err := it.proc.run(j.rec, ep, f32, u8, l.F32[j.slot*lw:(j.slot+1)*lw])
			j.rec.Data = nil
			return j, err
		}
		threads := it.cfg.Backend.Threads
		done := stage.ParallelMap(jobs, threads, work, stage.InFlight(max(2*threads, 8)))
		var out source.Reader[*sink.Tensors] = source.Func[*sink.Tensors](
			func(ctx context.Context) iter.Seq2[*sink.Tensors, error] {
				return func(yield func(*sink.Tensors, error) bool) {
					for j, err := range done.All(ctx) {
						if err != nil {
							yield(nil, err)
							return
						}
						// Results come in order: when the last row is
						// back, every row of its batch is written.
						if j.last && !yield(j.out, nil) {
							return
						}
					}
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

// indexedRecords reads the records of one .rec file through its .idx, in
// a new random order every epoch.
type indexedRecords struct {
	path    string
	idx     *recordio.Index
	offsets []int64 // the part's record offsets, ascending
	seed    uint64
	epochs  source.Epochs
}

func newIndexedRecords(recPath, idxPath string, seed uint64, numParts, partIndex int) (*indexedRecords, error) {
	idx, err := recordio.ReadIndex(idxPath)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(recPath)
	if err != nil {
		return nil, err
	}
	lo, hi := recordio.PartRange(st.Size(), numParts, partIndex)
	var offs []int64
	for _, e := range idx.Entries() {
		if e.Offset >= lo && e.Offset < hi {
			offs = append(offs, e.Offset)
		}
	}
	slices.Sort(offs)
	return &indexedRecords{path: recPath, idx: idx, offsets: offs, seed: seed}, nil
}

func (ir *indexedRecords) All(ctx context.Context) iter.Seq2[recordio.Record, error] {
	return func(yield func(recordio.Record, error) bool) {
		ep := ir.epochs.Next(ctx)
		perm := source.NewRand(ir.seed, ep, -1).Perm(len(ir.offsets))
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
			off := ir.offsets[i]
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
