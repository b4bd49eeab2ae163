package mxnet

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// recIter is MXNet's ImageRecordIter as a plain pipeline: the records
// (in file order, through a shuffle buffer, or by index in a new order
// every epoch) -> "parse" (the header and labels) -> Tensorize, whose
// data field decodes and augments every image straight into its row of
// the batch, on preprocess_threads goroutines, in order (running ahead by
// itself) -> Buffered (prefetch_buffer with one thread; with several it
// passes the batches through).
// Bad records are Tensorize's bad-record policy (skip_bad,
// pipeline.OnBad); state, statistics and memory reuse are the pipeline's
// and the sink's.
type recIter struct {
	recPath string
	cfg     *recConfig
	proc    *processor
	idx     []*recordio.Index // the .idx of each .rec, checked against it every pass
	feed    *pipeline.Pipe[*tensor.Batch]
	meanMu  sync.Mutex // held while the mean image is computed
}

// recJob is one record on its way to its row: the record, the epoch of
// its pass (its augmentation draws from (seed, epoch, index)), the image's
// bytes and labels, or the positioned error of a bad header or label.
type recJob struct {
	rec    recordio.Record
	epoch  int
	image  []byte
	label  float32   // the one label, when labels is nil
	labels []float32 // label_width labels, or a .lst file's
	err    error
	pooled bool // rec.Data goes back to the processor's bufs after the fill
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
	it := &recIter{recPath: recPath, cfg: c, proc: newProcessor(c), idx: idx}
	byIndex := c.shuffle && idx != nil
	var records *pipeline.Pipe[recordio.Record]
	// The records are read into recycled buffers (see recordBufs), or,
	// through the index, copied into them by "parse".
	it.proc.borrowed = byIndex
	if byIndex {
		records = pipeline.From[recordio.Record](&indexedRecords{it: it, epochs: new(source.Epochs)}).Named("records")
	} else {
		// The paths, resolved once, as Open's list; the part of
		// num_parts is dmlc's byte range of their concatenation.
		ropts := []recordio.Option{inputsplit.RecordIO(c.shardCount, c.shardIdx).(recordio.Option), recordio.Storage(c.storage...),
			recordio.Buffers(it.proc.bufs.get)}
		records = pipeline.From(recordio.Open(strings.Join(c.recPaths, ";"), ropts...)).Named("records")
		if c.shuffle {
			records = records.Shuffle(c.shuffleBuffer, c.seed)
		}
	}
	jobs := pipeline.Apply(records, func(r source.Reader[recordio.Record]) source.Reader[recJob] {
		return source.Follow(it.kind(), r, func(up source.Reader[recordio.Record]) source.Reader[recJob] {
			return it.parsePass(up, !byIndex)
		})
	}).Named("parse")
	feed := pipeline.Tensorize(jobs, it.sink(), c.last, pipeline.Workers(c.threads), pipeline.OnBad(c.skipBad))
	// With several threads Tensorize runs ahead by itself, holding as
	// many batches as fit its memory bound (one of 77 MB images, whose
	// rows the threads share, while the consumer holds the one before),
	// so the Buffered step passes the batches through: a batch it held
	// would be a batch more in memory and no faster. The step is there
	// in every case, and its size is no part of the checkpoint: a run
	// resumes with any thread count and any prefetch.
	n := c.prefetch
	if c.threads > 1 {
		n = 0
	}
	feed = feed.Buffered(n)
	it.feed = feed
	return it
}

// parsePass returns the step "parse" over up: each pass first computes the
// mean image when it is to be computed and, when check is set and there
// is an index, checks the index against the .rec files (a stale or damaged
// index would otherwise drop or repeat records without a word): a local
// file whole first, a remote one record by record as they arrive
// (streamCheck), so that its object is read once. It parses every record
// into a job of the pass's epoch.
func (it *recIter) parsePass(up source.Reader[recordio.Record], check bool) source.Reader[recJob] {
	var epochs source.Epochs
	return source.Func[recJob](func(ctx context.Context) iter.Seq2[recJob, error] {
		return func(yield func(recJob, error) bool) {
			if err := it.ensureMean(ctx); err != nil {
				yield(recJob{}, err)
				return
			}
			ctx, ep := epochs.Start(ctx)
			c := it.cfg
			tensorfeed.Logger(ctx).Debug("mxnet: ImageRecordIter: pass", zap.Int("epoch", ep), zap.String("rec", it.recPath),
				zap.Int("threads", c.threads), zap.String("decoder", c.decoder.Name()))
			var chk *streamCheck
			if check && it.idx != nil {
				var err error
				if chk, err = it.checkIndexes(ctx); err != nil {
					yield(recJob{}, err)
					return
				}
			}
			n := 0
			for rec, err := range up.All(ctx) {
				if err == nil && chk != nil {
					err = chk.record(rec)
				}
				if err != nil {
					yield(recJob{}, err)
					return
				}
				if !yield(it.proc.parse(rec, ep, n), nil) {
					return
				}
				n++
			}
			if chk != nil {
				if err := chk.end(); err != nil {
					yield(recJob{}, err)
				}
			}
		}
	})
}

// sink returns the sink of the Iter's batches: the data tensor, decoded
// and augmented into its row by the processor, of the configured dtype,
// and the labels.
func (it *recIter) sink() *sink.Sink[recJob] {
	c := it.cfg
	shape := []int{c.shape[0], c.shape[1], c.shape[2]}
	var data sink.Field[recJob]
	switch c.dtype {
	case sample.Uint8:
		data = sink.Fill(c.dataName, shape, func(j recJob, dst []uint8) error { return it.proc.run(j, nil, dst, nil) })
	case sample.Int8:
		data = sink.Fill(c.dataName, shape, func(j recJob, dst []int8) error { return it.proc.run(j, nil, nil, dst) })
	default:
		data = sink.Fill(c.dataName, shape, func(j recJob, dst []float32) error { return it.proc.run(j, dst, nil, nil) })
	}
	var lshape []int
	if w := c.labelWidth; w > 1 {
		lshape = []int{w}
	}
	label := sink.Float32(c.labelName, lshape, func(j recJob, dst []float32) {
		if j.labels != nil {
			copy(dst, j.labels)
			return
		}
		dst[0] = j.label
	})
	return sink.New(c.batchSize, []sink.Field[recJob]{data.WritesAll()}, []sink.Field[recJob]{label.WritesAll()})
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
	shape := []int{it.cfg.batchSize}
	if w := it.cfg.labelWidth; w > 1 {
		shape = append(shape, w)
	}
	return []tensor.Desc{{Name: it.cfg.labelName, Shape: shape, DType: sample.Float32}}
}

// Skipped returns how many bad records the Iter's passes skipped under
// SkipBad, over all passes. It implements source.SkipCounted.
func (it *recIter) Skipped() int64 {
	var n int64
	for _, s := range it.feed.Stats() {
		n += s.Skipped
	}
	return n
}

// All returns one pass (epoch) over the data: the pipeline's.
func (it *recIter) All(ctx context.Context) iter.Seq2[*tensor.Batch, error] { return it.feed.All(ctx) }

// indexedRecords reads the records of the .rec files through their .idx
// files, in a new random order every epoch over all files, several
// records ahead of the consumer (readAhead). Every pass checks each index
// against its .rec file: a local file whole before the first record; a
// remote one, so that the pass does not read the object once more before
// its first image, by what can be checked without reading it (offsets in
// the file, aligned, distinct, the first at 0), then record by record as
// each is read (a record start that ends where the next indexed record
// begins), which over a pass covers every byte of the part read.
type indexedRecords struct {
	it     *recIter
	epochs *source.Epochs
	from   int // the position in the epoch's order where passes start
}

func (ir *indexedRecords) All(ctx context.Context) iter.Seq2[recordio.Record, error] {
	return func(yield func(recordio.Record, error) bool) {
		_, ep := ir.epochs.Start(ctx)
		outer := ctx
		// The requests of the files opened with ctx end with the pass.
		ctx, cancel := context.WithCancel(ctx)
		var ra readAhead
		var files []*indexedFile
		defer func() {
			cancel()
			ra.wg.Wait()
			for _, f := range files {
				f.f.Close()
			}
		}()
		c := ir.it.cfg
		files, err := openIndexed(ctx, c, ir.it.idx)
		if err != nil {
			yield(recordio.Record{}, err)
			return
		}
		// Record i of the pass is entry lo+i-first[k] of file k.
		first := make([]int, len(files)+1)
		for k, f := range files {
			first[k+1] = first[k] + f.hi - f.lo
		}
		perm := source.NewRand(c.seed, ep, -1).Perm(first[len(files)])
		perm = perm[min(ir.from, len(perm)):]
		out := make(chan *fetch, aheadRecords)
		ra.start(ctx, len(perm), func(n int) (*indexedFile, int) {
			i := perm[n]
			k := sort.SearchInts(first, i+1) - 1
			return files[k], files[k].lo + i - first[k]
		}, out)
		n := 0
		for ft := range out {
			<-ft.done
			if ft.err != nil {
				if outer.Err() != nil {
					ft.err = outer.Err()
				}
				yield(recordio.Record{}, fmt.Errorf("mxnet: ImageRecordIter: record %d: %w", perm[ft.k], ft.err))
				return
			}
			off, _ := ft.file.span(ft.ent)
			if !yield(recordio.Record{File: ft.file.path, Offset: off, Index: perm[ft.k], Data: ft.data}, nil) {
				return
			}
			ra.release(ft.raw)
			n++
		}
		if n < len(perm) {
			yield(recordio.Record{}, outer.Err())
		}
	}
}

// openIndexed opens the .rec files of c for a pass through their indexes
// idx, checks each index against its file (see indexedRecords), and says
// which entries the pass's shard reads: shard c.shardIdx of c.shardCount,
// the files cut as one concatenated stream (as recordio.Shard cuts them).
// It returns the files opened so far with an error; the caller closes them.
func openIndexed(ctx context.Context, c *recConfig, idx []*recordio.Index) ([]*indexedFile, error) {
	var files []*indexedFile
	for i, p := range c.recPaths {
		f, err := storage.OpenFile(ctx, p, c.storage...)
		if err != nil {
			return files, err
		}
		x := &indexedFile{path: p, idxPath: c.idxPaths[i], f: f, size: f.Size(), sorted: sortedEntries(idx[i])}
		files = append(files, x)
		if storage.IsRemote(p) {
			err = x.checkEntries()
		} else {
			err = recordio.ValidateIndex(f, x.size, p, idx[i])
		}
		if err != nil {
			return files, err
		}
	}
	shardEntries(files, c.shardCount, c.shardIdx)
	return files, nil
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
