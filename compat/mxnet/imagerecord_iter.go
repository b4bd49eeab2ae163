package mxnet

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Iter reads batches of images from an image RecordIO file, as MXNet's
// ImageRecordIter does: it decodes, augments and normalises every image in
// parallel and yields each batch as a *tensor.Batch with one data tensor
// (N, C, H, W) and one label tensor (N) or (N, LabelWidth).
//
// Each pass is one epoch. The result is deterministic: image i of epoch e
// draws its augmentation from source.NewRand(seed, e, i), and the batches
// keep the file's order (or the shuffled one), so the output is the same
// for any number of threads.
//
// Every image is written straight into its row of the batch tensor. A
// batch belongs to the consumer; its Release hands the memory back to the
// Iter, which fills it again with a later batch, so a consumer that
// releases every batch allocates no batch memory in steady state.
type recIter struct {
	recPath string
	cfg     *recConfig
	proc    *processor
	batches source.Reader[batch.Batch[recordio.Record]]
	epochs  source.Epochs
	free    chan *tensor.Batch
	idx     []*recordio.Index // the .idx of each .rec, checked against it every pass
	skipped atomic.Int64
	meanMu  sync.Mutex // held while the mean image is computed
	root    *recIter   // a resumed Iter: the Iter it was made from
	partial bool       // a resumed Iter whose passes start part way: it may read none of the index
}

// newRecIter checks p, reads the .lst, .idx and mean image files it
// names, and returns the iterator; nothing else is opened until a pass
// starts.
func newRecIter(ctx context.Context, p Params) (*recIter, error) {
	c, err := parseImageRecord(ctx, p)
	if err != nil {
		return nil, err
	}
	var idx []*recordio.Index
	for _, path := range c.idxPaths {
		x, err := recordio.ReadIndex(ctx, path, recordio.Storage(c.storage...))
		if err != nil {
			return nil, err
		}
		idx = append(idx, x)
	}
	return build(c.recArg, c, idx), nil
}

// build returns the Iter of a checked configuration.
func build(recPath string, c *recConfig, idx []*recordio.Index) *recIter {
	var records source.Reader[recordio.Record]
	switch {
	case c.shuffle && idx != nil:
		records = &indexedRecords{paths: c.recPaths, seed: c.seed, epochs: new(source.Epochs)}
	default:
		// The paths, resolved once, as Open's list; the part of
		// num_parts is dmlc's byte range of their concatenation.
		records = recordio.Open(strings.Join(c.recPaths, ";"), inputsplit.RecordIO(c.shardCount, c.shardIdx).(recordio.Option),
			recordio.Storage(c.storage...))
		if c.shuffle {
			records = stage.Shuffle(records, c.shuffleBuffer, c.seed)
		}
	}
	it := &recIter{
		recPath: recPath,
		cfg:     c,
		proc:    newProcessor(c),
		batches: batch.Of(records, c.batchSize, c.last),
		free:    make(chan *tensor.Batch, max(c.prefetch, 0)+c.threads+2),
		idx:     idx,
	}
	return it
}

// ProvideData describes the data tensor of a full batch.
func (it *recIter) ProvideData() []tensor.Desc {
	s := it.cfg.shape
	return []tensor.Desc{{Name: it.cfg.dataName, Shape: []int{it.cfg.batchSize, s[0], s[1], s[2]},
		DType: it.cfg.dtype}}
}

// ProvideLabel describes the label tensor of a full batch: (N) for one
// label per image, else (N, LabelWidth).
func (it *recIter) ProvideLabel() []tensor.Desc {
	return []tensor.Desc{{Name: it.cfg.labelName, Shape: it.labelShape(it.cfg.batchSize), DType: sample.Float32}}
}

func (it *recIter) labelShape(n int) []int {
	if w := it.cfg.labelWidth; w > 1 {
		return []int{n, w}
	}
	return []int{n}
}

// Recycle takes back the memory of a batch the Iter made; it implements
// tensor.Recycler and is called by the batch's Release, never directly.
// A short batch cut from a full batch's memory goes back as a full one;
// other batches are left to the garbage collector.
func (it *recIter) Recycle(b *tensor.Batch) {
	if b == nil || len(b.Data) != 1 || len(b.Label) != 1 {
		return
	}
	if b.Len() != it.cfg.batchSize && !it.setRows(b, it.cfg.batchSize) {
		return
	}
	select {
	case it.free <- b:
	default:
	}
}

// setRows makes b's tensors n rows of their memory, when it holds that
// many; it reports whether it did.
func (it *recIter) setRows(b *tensor.Batch, n int) bool {
	s := it.cfg.shape
	per := s[0] * s[1] * s[2]
	d, l := &b.Data[0], &b.Label[0]
	if cap(l.F32) < n*it.cfg.labelWidth {
		return false
	}
	switch d.DType {
	case sample.Uint8:
		if cap(d.U8) < n*per {
			return false
		}
		d.U8 = d.U8[:n*per]
	case sample.Int8:
		if cap(d.I8) < n*per {
			return false
		}
		d.I8 = d.I8[:n*per]
	default:
		if cap(d.F32) < n*per {
			return false
		}
		d.F32 = d.F32[:n*per]
	}
	l.F32 = l.F32[:n*it.cfg.labelWidth]
	// New shapes: the consumer may still hold the old ones.
	d.Shape = []int{n, s[0], s[1], s[2]}
	l.Shape = it.labelShape(n)
	return true
}

// newBatch returns a batch of n images, recycled when it can (a short
// batch takes the first rows of a full one), whose Release hands it back
// to the Iter.
func (it *recIter) newBatch(n, padded int) *tensor.Batch {
	s := it.cfg.shape
	per := s[0] * s[1] * s[2]
	dt := it.cfg.dtype
	if n <= it.cfg.batchSize {
		select {
		case b := <-it.free:
			if n != b.Len() {
				it.setRows(b, n)
			}
			b.Padded = padded
			b.SetOwner(it.owner())
			return b
		default:
		}
	}
	data := tensor.Tensor{Name: it.cfg.dataName, Shape: []int{n, s[0], s[1], s[2]}, DType: dt}
	// A short batch gets the memory of a full one, so that its Release
	// hands back a batch every later pass can fill.
	rows := max(n, it.cfg.batchSize)
	switch dt {
	case sample.Uint8:
		data.U8 = make([]uint8, n*per, rows*per)
	case sample.Int8:
		data.I8 = make([]int8, n*per, rows*per)
	default:
		data.F32 = make([]float32, n*per, rows*per)
	}
	label := tensor.Tensor{Name: it.cfg.labelName, Shape: it.labelShape(n), DType: sample.Float32,
		F32: make([]float32, n*it.cfg.labelWidth, rows*it.cfg.labelWidth)}
	return tensor.NewBatch([]tensor.Tensor{data}, []tensor.Tensor{label}, padded, it.owner())
}

// owner returns the Iter whose batches these are: it, or the Iter a
// resumed one was made from, so both hand memory back to one place.
func (it *recIter) owner() *recIter {
	if it.root != nil {
		return it.root
	}
	return it
}

// Skipped returns how many bad records the Iter's passes skipped under
// SkipBad, over all passes. It implements source.SkipCounted.
func (it *recIter) Skipped() int64 { return it.skipped.Load() }

// job is one image to process into row slot of out.
type job struct {
	rec  recordio.Record
	out  *tensor.Batch
	slot int
	last bool  // the batch's last row
	pad  bool  // a padding row (batch.Pad)
	err  error // the record is bad data: skip it or end the pass
}

// passIndexKey carries a pass's checked index offsets from All to the
// records reader, in the pass's context.
type passIndexKey struct{}

// fileOffsets is the checked index of one .rec file of a pass: the offsets
// of its records in the pass's shard, ascending.
type fileOffsets struct {
	path    string
	idx     *recordio.Index
	offs    []int64
	storage []storage.Option // how path is opened
}

// shardOffsets checks every index against its .rec file as it is now and
// returns, per file, the offsets of the records of shard index of count,
// the files cut as one concatenated stream (as recordio.Shard cuts them).
func shardOffsets(ctx context.Context, recPaths []string, idx []*recordio.Index, count, index int, sopts []storage.Option) ([]fileOffsets, error) {
	out := make([]fileOffsets, len(recPaths))
	sizes := make([]int64, len(recPaths))
	var total int64
	for i, p := range recPaths {
		size, err := checkIndex(ctx, p, idx[i], sopts)
		if err != nil {
			return nil, err
		}
		sizes[i] = size
		total += size
	}
	begin, end := inputsplit.ShardRange(total, count, index)
	var at int64 // offset of file i in the concatenation
	for i, p := range recPaths {
		lo, hi := begin-at, end-at
		out[i] = fileOffsets{path: p, idx: idx[i], storage: sopts}
		for k := range idx[i].Len() {
			if e := idx[i].Entry(k); e.Offset >= lo && e.Offset < hi {
				out[i].offs = append(out[i].offs, e.Offset)
			}
		}
		slices.Sort(out[i].offs)
		at += sizes[i]
	}
	return out, nil
}

// checkIndex checks idx against the .rec file at path (a URL read through
// storage with sopts) and returns the file's size.
func checkIndex(ctx context.Context, path string, idx *recordio.Index, sopts []storage.Option) (int64, error) {
	return validateRec(ctx, path, idx, sopts)
}

// All returns one pass (epoch) over the data. Its first error (a bad
// record, an unreadable file, an .idx that does not match the .rec) is
// yielded once and ends the pass; record errors are *tensorfeed.Error values.
// With SkipBad, bad records are skipped instead, within its bound. The
// consumer calls Release on each batch when done with it.
func (it *recIter) All(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
	return func(yield func(*tensor.Batch, error) bool) {
		if err := it.ensureMean(ctx); err != nil {
			yield(nil, err)
			return
		}
		ctx, ep := it.epochs.Start(ctx)
		c := it.cfg
		log := tensorfeed.Logger(ctx)
		log.Debug("mxnet: ImageRecordIter: pass", zap.Int("epoch", ep), zap.String("rec", it.recPath),
			zap.Int("threads", c.threads), zap.String("decoder", c.decoder.Name()))
		total := int64(-1)
		if it.idx != nil {
			// Check before the first sample: a stale or damaged index
			// would otherwise drop or repeat records without a word.
			files, err := shardOffsets(ctx, c.recPaths, it.idx, c.shardCount, c.shardIdx, c.storage)
			if err != nil {
				yield(nil, err)
				return
			}
			ctx = context.WithValue(ctx, passIndexKey{}, files)
			total = 0
			for _, f := range files {
				total += int64(len(f.offs))
			}
		}
		jobs := source.Func[job](func(ctx context.Context) iter.Seq2[job, error] {
			return func(yield func(job, error) bool) {
				for b, err := range it.batches.All(ctx) {
					if err != nil {
						yield(job{}, err)
						return
					}
					n := len(b.Samples)
					t := it.newBatch(n, b.Padded)
					for i, rec := range b.Samples {
						if !yield(job{rec: rec, out: t, slot: i, last: i == n-1, pad: i >= n-b.Padded}, nil) {
							return
						}
					}
				}
			}
		})
		per := c.shape[0] * c.shape[1] * c.shape[2]
		lw := c.labelWidth
		work := func(j job) (job, error) {
			dt, l := &j.out.Data[0], &j.out.Label[0]
			lo, hi := j.slot*per, (j.slot+1)*per
			var f32 []float32
			var u8 []uint8
			var i8 []int8
			switch dt.DType {
			case sample.Uint8:
				u8 = dt.U8[lo:hi:hi]
			case sample.Int8:
				i8 = dt.I8[lo:hi:hi]
			default:
				f32 = dt.F32[lo:hi:hi]
			}
			err := it.proc.run(j.rec, ep, f32, u8, i8, l.F32[j.slot*lw:(j.slot+1)*lw])
			j.rec.Data = nil
			if errors.Is(err, tensorfeed.ErrBadData) {
				// The collector decides, in order, whether to skip it.
				j.err, err = err, nil
			}
			return j, err
		}
		threads := c.threads
		done := stage.ParallelMap(jobs, threads, work, stage.InFlight(max(2*threads, 8)))
		var out source.Reader[*tensor.Batch] = source.Func[*tensor.Batch](
			func(ctx context.Context) iter.Seq2[*tensor.Batch, error] {
				return func(yield func(*tensor.Batch, error) bool) {
					col := collector{it: it, per: per, lw: lw,
						count: c.skipBad.Pass(total, log), yield: yield}
					for j, err := range done.All(ctx) {
						if err != nil {
							yield(nil, err)
							return
						}
						if !col.add(j) {
							return
						}
					}
					col.end(total)
				}
			})
		if p := c.prefetch; p > 0 {
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
	it      *recIter
	per, lw int
	count   *source.SkipCounter
	yield   func(*tensor.Batch, error) bool
	cur     *tensor.Batch // the batch being filled, nil between batches
	k       int           // rows of cur filled
	sent    *tensor.Batch // the batch yielded last
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
		if c.k == c.cur.Len() {
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
		switch c.it.cfg.last {
		case batch.Drop:
			c.it.Recycle(t)
		case batch.Pad, batch.RoundBatch:
			// Repeat the batch's first rows, as padding does.
			for i := c.k; i < t.Len(); i++ {
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
	if total > 0 && c.good == 0 && !c.it.partial {
		c.yield(nil, fmt.Errorf("mxnet: ImageRecordIter: %s: the index %s lists %d records for this pass, but none could be read: %w",
			c.it.recPath, c.it.cfg.idxPath, total, source.ErrTooManyBad))
	}
}

// copyRow copies row s of src (data and labels) to row k of dst.
func (c *collector) copyRow(dst *tensor.Batch, k int, src *tensor.Batch, s int) {
	dd, sd := &dst.Data[0], &src.Data[0]
	switch dd.DType {
	case sample.Uint8:
		copy(dd.U8[k*c.per:(k+1)*c.per], sd.U8[s*c.per:(s+1)*c.per])
	case sample.Int8:
		copy(dd.I8[k*c.per:(k+1)*c.per], sd.I8[s*c.per:(s+1)*c.per])
	default:
		copy(dd.F32[k*c.per:(k+1)*c.per], sd.F32[s*c.per:(s+1)*c.per])
	}
	copy(dst.Label[0].F32[k*c.lw:(k+1)*c.lw], src.Label[0].F32[s*c.lw:(s+1)*c.lw])
}

// shrink cuts t down to its first n rows.
func (c *collector) shrink(t *tensor.Batch, n int) {
	dd, l := &t.Data[0], &t.Label[0]
	dd.Shape = slices.Clone(dd.Shape)
	dd.Shape[0] = n
	switch dd.DType {
	case sample.Uint8:
		dd.U8 = dd.U8[:n*c.per]
	case sample.Int8:
		dd.I8 = dd.I8[:n*c.per]
	default:
		dd.F32 = dd.F32[:n*c.per]
	}
	l.Shape = slices.Clone(l.Shape)
	l.Shape[0] = n
	l.F32 = l.F32[:n*c.lw]
}

// indexedRecords reads the records of the .rec files through their .idx
// files, in a new random order every epoch over all files. The offsets of
// a pass come checked from Iter.All through the context.
type indexedRecords struct {
	paths  []string
	seed   uint64
	epochs *source.Epochs
	from   int // the position in the epoch's order where passes start
}

func (ir *indexedRecords) All(ctx context.Context) iter.Seq2[recordio.Record, error] {
	return func(yield func(recordio.Record, error) bool) {
		_, ep := ir.epochs.Start(ctx)
		files, ok := ctx.Value(passIndexKey{}).([]fileOffsets)
		if !ok {
			yield(recordio.Record{}, errors.New("mxnet: ImageRecordIter: internal error: an indexed pass without its checked index"))
			return
		}
		// Record i of the pass is offset i-first[k] of file k.
		first := make([]int, len(files)+1)
		for k, f := range files {
			first[k+1] = first[k] + len(f.offs)
		}
		perm := source.NewRand(ir.seed, ep, -1).Perm(first[len(files)])
		// Each file is opened when its first record is read and closed at
		// the end of the pass.
		readers := make([]*randomFile, len(files))
		defer func() {
			for _, rf := range readers {
				if rf != nil {
					rf.f.Close()
				}
			}
		}()
		done := ctx.Done()
		for n, i := range perm[min(ir.from, len(perm)):] {
			if n%64 == 0 {
				select {
				case <-done:
					yield(recordio.Record{}, ctx.Err())
					return
				default:
				}
			}
			k := sort.SearchInts(first, i+1) - 1
			f := &files[k]
			if readers[k] == nil {
				rr, err := openRandom(ctx, f)
				if err != nil {
					yield(recordio.Record{}, err)
					return
				}
				readers[k] = rr
			}
			off := f.offs[i-first[k]]
			data, err := readers[k].rr.AppendAt(nil, off)
			if err != nil {
				yield(recordio.Record{}, fmt.Errorf("mxnet: ImageRecordIter: record %d: %w", i, err))
				return
			}
			if !yield(recordio.Record{File: f.path, Offset: off, Index: i, Data: data}, nil) {
				return
			}
		}
	}
}

// randomFile is an open .rec file read through its index.
type randomFile struct {
	f  storage.File
	rr *recordio.RandomReader
}

// openRandom opens the .rec file of f (a URL through storage with its
// options) for reads by offset: the index, checked, tells where each record
// ends, so one ReadAt (one range request) reads a record; ctx bounds the
// requests until the file is closed.
func openRandom(ctx context.Context, f *fileOffsets) (*randomFile, error) {
	return openRec(ctx, f.path, f.idx, f.storage)
}

// ensureMean computes and saves the mean image when MeanImg names a file
// that did not exist, once, before the first pass reads any image.
func (it *recIter) ensureMean(ctx context.Context) error {
	it.meanMu.Lock()
	defer it.meanMu.Unlock()
	c := it.cfg
	if !c.computeMean {
		return nil
	}
	// The same data, decoding and augmentation as a pass of epoch 0, as
	// raw pixels, in file order.
	sub := *c
	sub.dtype, sub.shuffle, sub.last, sub.prefetch = sample.Uint8, false, batch.Keep, 0
	sub.computeMean = false
	per := c.shape[0] * c.shape[1] * c.shape[2]
	sum := make([]float64, per)
	n := 0
	for b, err := range build(it.recPath, &sub, it.idx).All(ctx) {
		if err != nil {
			return fmt.Errorf("mxnet: ImageRecordIter: computing the mean image %s: %w", c.meanImgPath, err)
		}
		px := b.Data[0].U8
		for r := range b.Len() - b.Padded {
			for i, v := range px[r*per : (r+1)*per] {
				sum[i] += float64(v)
			}
			n++
		}
		b.Release()
	}
	if n == 0 {
		return fmt.Errorf("mxnet: ImageRecordIter: computing the mean image %s: no image in the data", c.meanImgPath)
	}
	mean := make([]float32, per)
	for i, v := range sum {
		mean[i] = float32(v / float64(n))
	}
	s := c.shape
	if err := imagerec.WriteMeanImage(c.meanImgPath, []int{s[0], s[1], s[2]}, mean); err != nil {
		return fmt.Errorf("mxnet: ImageRecordIter: saving the mean image: %w", err)
	}
	tensorfeed.Logger(ctx).Info("mxnet: ImageRecordIter: mean image computed and saved",
		zap.String("path", c.meanImgPath), zap.Int("images", n))
	c.norm.MeanImage = mean
	c.computeMean = false
	return nil
}
