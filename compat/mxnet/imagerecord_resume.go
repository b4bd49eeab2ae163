package mxnet

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/internal/kind"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// An Iter is source.Resumable through its pipeline. Its batches are the batches of records it
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

// StateAt returns the state of the Iter's pipeline: source.Resumable.
func (it *recIter) StateAt(epoch int, n int64) (source.State, error) {
	return it.feed.StateAt(epoch, n)
}

// Resume returns a reader that continues the pass st was taken from.
func (it *recIter) Resume(st source.State) (source.Reader[*tensor.Batch], error) {
	return it.feed.Resume(st)
}

func (ir *indexedRecords) kind() string {
	return fmt.Sprintf("records(%d files,shuffle=%d)", len(ir.it.cfg.recPaths), ir.it.cfg.seed)
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
	return &indexedRecords{it: ir.it, epochs: new(source.Epochs), from: int(st.Pos[0])}, nil
}
