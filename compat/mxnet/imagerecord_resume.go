package mxnet

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/internal/kind"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// An Iter is source.Resumable. Its batches are the batches of records it
// decodes, in order and whatever the number of threads, so its state after
// n batches is the state of its record batches after n: with a shuffle by
// index (Shuffle with an .idx) that is a position in the epoch's order,
// and a resumed pass reads no record before it; the random crops and
// mirrors of a record come from (seed, epoch, record index), so resumed
// batches are byte-identical. A pass in file order or through a shuffle
// buffer resumes by replay. Under SkipBad a skipped record moves later
// images up across batches, so an Iter with a bad-record policy resumes by
// replay too: exact, at the cost of decoding what it skips.

// kind names the Iter in states: every parameter that decides its batches'
// content, derived from the configuration (internal/kind), so that a
// parameter added to recConfig is in the kind without a line here and a
// checkpoint of other augmentation is refused naming it. Left out: where
// the data is (the checkpoint's data digest covers the files), how it is
// read (threads, prefetch, limits, storage, the decoder) and the shard,
// which resume may change.
func (it *recIter) kind() string {
	return kind.Of("ImageRecordIter", it.cfg, "recArg", "idxPath", "listPath", "recPaths", "idxPaths", "shardCount", "shardIdx",
		"labels", "meanImgPath", "computeMean", "threads", "prefetch", "decoder", "maxDecodeBytes", "storage")
}

// StateAt returns {ImageRecordIter(...), the record batches' state after n}, or
// {ImageRecordIter(...), [n]} (a replay) under a bad-record policy.
func (it *recIter) StateAt(epoch int, n int64) (source.State, error) {
	if it.cfg.skipBad != nil {
		return source.State{Kind: it.kind(), Pos: []int64{n}}, nil
	}
	in, err := source.StateOf(it.batches, epoch, n)
	if err != nil {
		return source.State{}, err
	}
	return source.State{Kind: it.kind(), In: []source.State{in}}, nil
}

// Resume returns an Iter whose next pass continues the pass st was taken
// from. It shares the batches' memory with it: Release hands a batch of
// either back to both.
func (it *recIter) Resume(st source.State) (source.Reader[*tensor.Batch], error) {
	if it.cfg.skipBad != nil {
		if err := st.Check(it.kind(), 1, 0); err != nil {
			return nil, err
		}
		// The replay's passes start at the epoch's start, and its states
		// count from there.
		return source.Replay[*tensor.Batch](it.sibling(it.batches), st.Pos[0]), nil
	}
	if err := st.Check(it.kind(), 0, 1); err != nil {
		return nil, err
	}
	b, err := source.ResumeFrom(it.batches, st.In[0])
	if err != nil {
		return nil, err
	}
	q := it.sibling(b)
	q.partial = true
	return q, nil
}

// sibling returns an Iter like it that reads batches of records from b.
func (it *recIter) sibling(b source.Reader[batch.Batch[recordio.Record]]) *recIter {
	return &recIter{recPath: it.recPath, cfg: it.cfg, proc: it.proc, batches: b, free: it.free, idx: it.idx, root: it.owner()}
}

func (ir *indexedRecords) kind() string {
	return fmt.Sprintf("records(%d files,shuffle=%d)", len(ir.paths), ir.seed)
}

// StateAt returns {records(...), [position in the epoch's order]}.
func (ir *indexedRecords) StateAt(_ int, n int64) (source.State, error) {
	return source.State{Kind: ir.kind(), Pos: []int64{int64(ir.from) + n}}, nil
}

// Resume starts at the position of st: the records before it are not read.
func (ir *indexedRecords) Resume(st source.State) (source.Reader[recordio.Record], error) {
	if err := st.Check(ir.kind(), 1, 0); err != nil {
		return nil, err
	}
	return &indexedRecords{paths: ir.paths, seed: ir.seed, epochs: new(source.Epochs), from: int(st.Pos[0])}, nil
}
